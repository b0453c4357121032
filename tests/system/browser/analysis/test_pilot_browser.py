"""The simulated pilot in Chromium: one click from the builder to SIMULATED cards.

Screenshots go to test-artifacts/analysis/.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from tests.conftest import ROOT
from tests.surveys.authoring.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)
pytest.importorskip("playwright.sync_api")

ARTIFACTS = ROOT / "test-artifacts" / "analysis"


def test_pilot_from_the_builder_shows_simulated_cards_at_the_planned_n(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = services.survey_create(
        owner=ada, title="Pilot", epsilon_budget=10, planned_respondents=600
    )
    question = services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="warner"),
    )
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")
    page.goto(
        live_server.url + reverse("authoring:survey_detail", kwargs={"pk": survey.pk})
    )
    page.click("#pilot-link")
    page.get_by_label(
        "Expected shares for “Have you ever cheated on an exam?” (%)"
    ).fill("70, 30")  # No, Yes: the order the page names
    page.click("#pilot-form button[type=submit]")
    card = page.locator(f"#pilot-results #q{question.pk}")
    card.wait_for()
    assert "SIMULATED" in page.text_content("#simulated-heading")
    assert card.locator('[data-field="n"]').text_content().strip() == "600"
    assert "in this order: No, Yes" in page.text_content("#pilot-form")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "pilot-desktop.png"), full_page=True)
    assert problems == []
