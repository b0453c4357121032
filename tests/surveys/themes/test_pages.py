"""A theme on the respondent's pages: name, logo and accent, all same-origin."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from surveys.authoring.survey_forms import SurveyForm
from surveys.themes.models import Theme
from tests.surveys.collection.conftest import JSON, body
from tests.surveys.themes.conftest import PNG

pytestmark = pytest.mark.django_db


def _pages(client, survey) -> dict[str, str]:
    consent = reverse("collection:consent", args=[survey.public_token])
    answer = reverse("collection:respond", args=[survey.public_token])
    posted = client.post(answer, body(survey), **JSON)
    assert posted.status_code == 201
    return {
        "consent": client.get(consent).content.decode(),
        "answer": client.get(answer).content.decode(),
        "receipt": client.get(posted.json()["receipt_url"]).content.decode(),
    }


def test_respondent_pages_show_the_themes_name_logo_and_stylesheet(
    client, themed_survey, theme
):
    for name, html in _pages(client, themed_survey).items():
        assert f'src="{theme.logo_url}" alt="Université de Exemple"' in html, name
        assert f'<link rel="stylesheet" href="{theme.stylesheet_url}">' in html, name


def test_themed_pages_load_nothing_from_another_origin(client, themed_survey):
    for name, html in _pages(client, themed_survey).items():
        # What a browser fetches by itself: links to follow are not requests.
        sources = re.findall(
            r"<(?:link|script|img|source|iframe|embed|object)\b[^>]*?"
            r'\b(?:src|href|data)="([^"]*)"',
            html,
        )
        assert sources, name
        assert all(s.startswith("/") and not s.startswith("//") for s in sources), (
            name,
            sources,
        )
        assert " style=" not in html, name


def test_themed_page_keeps_the_content_security_policy(client, themed_survey):
    page = client.get(reverse("collection:consent", args=[themed_survey.public_token]))
    policy = page["Content-Security-Policy"]
    assert "style-src 'self'" in policy and "unsafe-inline" not in policy
    assert "img-src 'self' data:" in policy


def test_a_survey_without_a_pick_shows_the_institution_default(client, survey):
    Theme.objects.create(name="Other", accent="#000000")
    default = Theme.objects.create(
        name="Institut Défaut", accent="#1a6b34", is_institution_default=True
    )
    html = client.get(reverse("collection:consent", args=[survey.public_token]))
    assert default.stylesheet_url in html.content.decode()
    assert "Institut Défaut" in html.content.decode()


def test_an_unthemed_page_has_no_theme(client, survey):
    html = client.get(reverse("collection:consent", args=[survey.public_token]))
    assert "themed-brand" not in html.content.decode()
    assert "/themes/" not in html.content.decode()


def test_theme_stylesheet_sets_the_accent_and_is_cached_by_version(client, theme):
    response = client.get(theme.stylesheet_url)
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert response.content.decode() == ":root { --accent: #6b2c91; }\n"
    assert "immutable" in response["Cache-Control"]
    stale = client.get(reverse("themes:stylesheet", args=[theme.pk, "old"]))
    assert "no-cache" in stale["Cache-Control"]


def test_theme_logo_is_served_with_its_type_and_no_sniffing(client, theme):
    response = client.get(theme.logo_url)
    assert response.content == PNG
    assert response["Content-Type"] == "image/png"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "max-age=31536000" in response["Cache-Control"]


def test_a_theme_without_a_logo_has_no_logo_url(client):
    theme = Theme.objects.create(name="Plain", accent="#000000")
    assert theme.logo_url == ""
    missing = reverse("themes:logo", args=[theme.pk, theme.version])
    assert client.get(missing).status_code == 404


def test_survey_settings_form_picks_a_theme_or_the_default(survey, theme):
    fields = {
        "title": survey.title,
        "epsilon_budget": survey.epsilon_budget,
        "planned_respondents": survey.planned_respondents,
    }
    form = SurveyForm({**fields, "theme": theme.pk}, instance=survey)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["theme"] == theme
    assert form.fields["theme"].empty_label == "The institution's default theme"


def test_owner_picks_a_theme_on_the_settings_page(client, researcher, survey, theme):
    client.force_login(researcher)
    url = reverse("authoring:survey_edit", args=[survey.pk])
    form = client.get(url).context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(theme=theme.pk, link_fields="")
    response = client.post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    survey.refresh_from_db()
    assert survey.theme == theme
