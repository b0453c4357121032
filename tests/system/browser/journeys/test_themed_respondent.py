"""A themed survey in Chromium: the institution's name, logo and accent colour
on the consent, answer and receipt pages, every page clean under the journeys'
accessibility gate, and not one request to another origin."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.themes.models import Theme
from tests.surveys.themes.conftest import PNG
from tests.system.browser.journeys.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)

ACCENT = "#6b2c91"
ACCENT_RGB = "rgb(107, 44, 145)"


@pytest.fixture
def themed_survey(researcher) -> Survey:
    theme = Theme.objects.create(
        name="Université Exemple", accent=ACCENT, logo=PNG, logo_type="image/png"
    )
    survey = authoring.survey_create(owner=researcher, title="Themed study")
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    survey.theme = theme
    survey.save(update_fields=["theme"])
    return authoring.survey_publish(survey=survey, user=researcher)


def test_themed_respondent_pages_show_the_theme_and_stay_on_this_origin(
    live_server, browser, themed_survey, artifacts
):
    context = browser.new_context(viewport=PHONE)
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(
        live_server.url
        + reverse("collection:consent", args=[themed_survey.public_token])
    )
    logo = page.get_by_role("img", name="Université Exemple")
    assert logo.evaluate("image => image.complete && image.naturalWidth > 0")
    take_part = page.locator("#take-part")
    take_part.wait_for(state="visible", timeout=10_000)
    assert take_part.evaluate("e => getComputedStyle(e).backgroundColor") == ACCENT_RGB
    page.screenshot(path=str(artifacts / "themed-consent-phone.png"), full_page=True)
    take_part.click()

    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=10_000)
    assert page.get_by_role("img", name="Université Exemple").is_visible()
    page.locator(".question input[type=radio]").first.check()
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=10_000)
    assert page.get_by_role("img", name="Université Exemple").is_visible()
    assert errors == []

    origin = urlsplit(live_server.url).netloc
    assert {urlsplit(url).netloc for url in requested} == {origin}
    assert any("/themes/" in url and url.endswith("/logo") for url in requested)
    context.close()
