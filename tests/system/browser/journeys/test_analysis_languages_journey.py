"""A researcher reads the results in Spanish in headless Chromium, every page
passing the accessibility gate at desktop and phone size.

Once signed in, the reader picks Spanish (the picker's cookie); the
dashboard, its live refresh and the privacy page read in Spanish, shares are
written with a decimal comma, and the page's scripts raise no error.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.urls import reverse
from playwright.sync_api import expect

from tests.surveys.analysis.dashboard_support import make_survey, simulate
from tests.system.browser.journeys.conftest import DESKTOP, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_researcher_reads_the_results_in_spanish(live_server, browser, researcher):
    survey = make_survey(researcher)
    simulate(survey, 120)
    problems: list[str] = []
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    sign_in(page, live_server.url)
    # Spanish from here on, as the language picker would set it.
    context.add_cookies(
        [
            {
                "name": settings.LANGUAGE_COOKIE_NAME,
                "value": "es",
                "url": live_server.url,
            }
        ]
    )

    page.goto(live_server.url + reverse("analysis:dashboard", args=[survey.pk]))
    assert page.locator("html").get_attribute("lang") == "es"
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Resultados: Student life"
    )
    expect(page.locator("[data-freshness]")).to_contain_text("Calculados hace")
    share = page.locator('td[data-field="estimate"]').first
    assert re.fullmatch(r"-?\d+,\d\u00a0%\*?", share.text_content() or "")
    expect(page.locator('dd[data-field="n"]').first).to_have_text("120")

    simulate(survey, 30, seed=7)
    page.evaluate("window.__same_document = true")
    page.get_by_role("link", name="Actualizar").click()
    expect(page.locator('dd[data-field="n"]').first).to_have_text("150")
    assert page.evaluate("window.__same_document === true")
    expect(page.locator("[data-freshness]")).to_contain_text("Calculados hace")

    page.get_by_role("link", name="Privacidad", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Privacidad de esta encuesta"
    )
    expect(page.locator("svg").first).to_contain_text("error de tipo I")
    context.close()
    assert problems == []
