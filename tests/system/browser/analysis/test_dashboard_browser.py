"""The dashboard in headless Chromium: no CSP violations, live refresh in place.

Screenshots are saved under test-artifacts/ for review.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.conftest import ROOT
from tests.surveys.analysis.dashboard_support import PASSWORD, make_survey, simulate

pytestmark = pytest.mark.django_db(transaction=True)
sync_api = pytest.importorskip("playwright.sync_api")

ARTIFACTS = ROOT / "test-artifacts"


def _signed_in_page(browser, live_server):
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    problems: list[str] = []
    # Console errors name CSP violations; failed loads are checked by URL
    # (the browser's own favicon request is not ours).
    page.on(
        "console",
        lambda m: (
            m.type == "error"
            and "Failed to load resource" not in m.text
            and problems.append(m.text)
        ),
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on(
        "response",
        lambda r: (
            r.status >= 400
            and not r.url.endswith("/favicon.ico")
            and problems.append(f"{r.status} {r.url}")
        ),
    )
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    return page, problems


def test_dashboard_refreshes_in_place_without_csp_errors(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = make_survey(ada)
    simulate(survey, 200)
    page, problems = _signed_in_page(browser, live_server)
    page.goto(live_server.url + reverse("analysis:dashboard", args=[survey.pk]))
    first = page.locator('dd[data-field="n"]').first
    assert first.text_content() == "200"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)
    page.locator(".result-card").nth(4).screenshot(
        path=str(ARTIFACTS / "dashboard-ordinal-card.png")
    )

    simulate(survey, 50, seed=99)
    page.evaluate("window.__same_document = true")
    page.click(".refresh-link")
    sync_api.expect(first).to_have_text("250")
    # Swapped by dashboard.js: the same document, not a reload.
    assert page.evaluate("window.__same_document === true")
    assert problems == []


def test_privacy_and_crosstab_pages_render_without_csp_errors(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = make_survey(ada)
    simulate(survey, 200)
    page, problems = _signed_in_page(browser, live_server)
    page.goto(live_server.url + reverse("analysis:privacy", args=[survey.pk]))
    assert page.locator("svg.chart").count() == 7
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "privacy.png"), full_page=True)
    page.goto(live_server.url + reverse("analysis:crosstab", args=[survey.pk]))
    page.click("text=Show cross-tab")
    page.wait_for_selector(".crosstab-table")
    page.screenshot(path=str(ARTIFACTS / "crosstab.png"), full_page=True)
    assert problems == []
