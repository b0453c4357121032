"""A number question's result card at n = 500 in Chromium: median and bins.

The screenshot is saved to docs/screenshots/ (numeric results readable at
n = 500).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from tests.conftest import ROOT
from tests.surveys.analysis.dashboard_support import simulate
from tests.system.browser.analysis.test_dashboard_browser import (
    PASSWORD,
    _signed_in_page,
)

pytestmark = pytest.mark.django_db(transaction=True)
sync_api = pytest.importorskip("playwright.sync_api")

SCREENSHOTS = ROOT / "docs" / "screenshots"


def _hours_survey(owner):
    survey = authoring.survey_create(
        owner=owner, title="Working week", epsilon_budget=5.0, planned_respondents=500
    )
    authoring.question_create(
        survey=survey,
        text="How many hours did you work last week?",
        privacy=PrivacyConfig(
            kind="numeric",
            epsilon=1.0,
            mechanism="geometric",
            low=Decimal(0),
            high=Decimal(40),
            step=Decimal(1),
        ),
    )
    return authoring.survey_publish(survey=survey, user=owner)


def test_a_number_card_shows_median_and_bins_and_takes_new_cut_points(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = _hours_survey(ada)
    simulate(survey, 500)
    page, problems = _signed_in_page(browser, live_server)
    page.set_viewport_size({"width": 900, "height": 1200})
    page.goto(live_server.url + reverse("analysis:dashboard", args=[survey.pk]))
    card = page.locator(".result-card").first
    assert card.locator('dd[data-field="n"]').text_content() == "500"
    assert card.locator('[data-field="median"]').count() == 1
    assert card.locator('td[data-field="bin-share"]').count() == 5
    assert card.locator('td[data-field="estimate"]').count() == 0  # no per-level
    assert "constrained maximum likelihood, Wald and Woodruff intervals" in (
        card.locator('[data-field="bin-method"]').text_content()
    )
    card.screenshot(path=str(SCREENSHOTS / "results-numeric-card-n500.png"))

    card.locator('[data-field="bins-link"]').click()
    page.get_by_label("Group answers into bins: cut points").fill("0, 10, 20, 40")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/{survey.pk}/#q*")
    card = page.locator(".result-card").first
    sync_api.expect(card.locator('td[data-field="bin-share"]')).to_have_count(3)
    assert card.locator('th[scope="row"]').all_text_contents() == [
        "0–9",
        "10–19",
        "20–40",
    ]
    assert problems == []
