"""A survey's own accent colour: chosen by its editors on the settings page,
checked like a theme's, and shown on respondent pages through a same-origin
stylesheet built from the validated value only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.accounts.models import AuditEntry
from surveys.authoring.models import Collaborator

pytestmark = pytest.mark.django_db


def _settings(client, survey, **changes) -> dict:
    url = reverse("authoring:survey_edit", args=[survey.pk])
    form = client.get(url).context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(link_fields="", **changes)
    return data


def _post_accent(client, survey, accent: str):
    url = reverse("authoring:survey_edit", args=[survey.pk])
    return client.post(url, _settings(client, survey, theme_accent=accent))


def _audited(survey) -> list[str]:
    return list(
        AuditEntry.objects.filter(survey_id=survey.pk)
        .order_by("pk")
        .values_list("detail", flat=True)
    )


@pytest.mark.parametrize(
    "bad", ["red", "#12345", "#1234567", "#12345g", "#000; } body { color: red"]
)
def test_a_malformed_accent_is_refused_with_the_format_and_nothing_changes(
    client, researcher, survey, bad
):
    client.force_login(researcher)
    before = _audited(survey)
    response = _post_accent(client, survey, bad)
    assert response.status_code == 200
    errors = " ".join(response.context["form"].errors["theme_accent"])
    assert "Give the colour as # and six hexadecimal digits" in errors
    survey.refresh_from_db()
    assert survey.theme_accent == ""
    assert _audited(survey) == before


def test_a_low_contrast_accent_is_refused_with_its_ratio_and_nothing_changes(
    client, researcher, survey
):
    client.force_login(researcher)
    before = _audited(survey)
    response = _post_accent(client, survey, "#ffcc00")
    assert response.status_code == 200
    (error,) = response.context["form"].errors["theme_accent"]
    assert "#ffcc00 has a contrast ratio of 1.51:1" in error
    assert "WCAG AA needs at least 4.5:1" in error
    assert "Choose a darker colour." in error
    assert "WCAG AA needs at least 4.5:1" in response.content.decode()
    survey.refresh_from_db()
    assert survey.theme_accent == ""
    assert _audited(survey) == before


def test_an_editor_sets_the_accent_in_lower_case_and_it_is_audited(
    client, researcher, survey
):
    client.force_login(researcher)
    response = _post_accent(client, survey, "#6B2C91")
    assert response.status_code == 302, response.context["form"].errors
    survey.refresh_from_db()
    assert survey.theme_accent == "#6b2c91"
    assert "accent colour of the theme → #6b2c91" in _audited(survey)


def test_emptying_the_accent_returns_to_the_themes_and_is_audited(
    client, researcher, survey
):
    survey.theme_accent = "#6b2c91"
    survey.save(update_fields=["theme_accent"])
    client.force_login(researcher)
    assert _post_accent(client, survey, "").status_code == 302
    survey.refresh_from_db()
    assert survey.theme_accent == ""
    assert "accent colour #6b2c91 → of the theme" in _audited(survey)


def test_a_co_editor_may_set_the_accent(client, researcher, survey, django_user_model):
    bob = django_user_model.objects.create_user("bob")
    Collaborator.objects.create(survey=survey, user=bob, role="editor")
    client.force_login(bob)
    assert _post_accent(client, survey, "#1a6b34").status_code == 302
    survey.refresh_from_db()
    assert survey.theme_accent == "#1a6b34"


def test_a_viewer_may_not_set_the_accent(client, researcher, survey, django_user_model):
    owner = client
    owner.force_login(researcher)
    data = _settings(owner, survey, theme_accent="#1a6b34")
    bob = django_user_model.objects.create_user("bob")
    Collaborator.objects.create(survey=survey, user=bob, role="viewer")
    client.force_login(bob)
    url = reverse("authoring:survey_edit", args=[survey.pk])
    assert client.post(url, data).status_code == 404
    survey.refresh_from_db()
    assert survey.theme_accent == ""


def test_the_respondent_pages_load_the_accent_after_the_theme(
    client, themed_survey, theme
):
    themed_survey.theme_accent = "#1a6b34"
    themed_survey.save(update_fields=["theme_accent"])
    accent = reverse("themes:accent_stylesheet", args=["1a6b34"])
    for name in ("collection:consent", "collection:respond"):
        html = client.get(reverse(name, args=[themed_survey.public_token]))
        text = html.content.decode()
        theme_link = f'<link rel="stylesheet" href="{theme.stylesheet_url}">'
        accent_link = f'<link rel="stylesheet" href="{accent}">'
        assert theme_link + accent_link in text, name
        assert " style=" not in text, name


def test_an_accent_shows_without_any_theme(client, survey):
    survey.theme_accent = "#1a6b34"
    survey.save(update_fields=["theme_accent"])
    html = client.get(reverse("collection:consent", args=[survey.public_token]))
    assert 'href="/themes/accent/1a6b34.css"' in html.content.decode()
    assert "themed-brand" not in html.content.decode()


def test_the_accent_stylesheet_sets_the_custom_property_and_is_cached(client):
    response = client.get(reverse("themes:accent_stylesheet", args=["1a6b34"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert response.content.decode() == ":root { --accent: #1a6b34; }\n"
    assert "immutable" in response["Cache-Control"]
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("digits", ["ffcc00", "1A6B34", "zzzzzz", "1a6b3", "1a6b34;"])
def test_the_accent_stylesheet_serves_only_validated_colours(client, digits):
    url = reverse("themes:accent_stylesheet", args=[digits])
    assert client.get(url).status_code == 404
