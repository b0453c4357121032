"""The builder's planning panel in Chromium: live figures that follow ε.

Screenshots (desktop and phone) go to test-artifacts/authoring/.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

import ldp
from surveys.authoring import services
from tests.conftest import ROOT
from tests.surveys.authoring.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)
pytest.importorskip("playwright.sync_api")

ARTIFACTS = ROOT / "test-artifacts" / "authoring"


def _sign_in(page, base: str) -> None:
    page.goto(base + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")


def _wait_for(page, selector: str, text: str) -> None:
    page.wait_for_function(
        "([selector, text]) => document.querySelector(selector).textContent.trim()"
        " === text",
        arg=[selector, text],
    )


def test_planning_panel_updates_respondents_needed_when_epsilon_changes(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = services.survey_create(owner=ada, title="Planning", epsilon_budget=10)
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    _sign_in(page, live_server.url)
    page.goto(
        live_server.url + reverse("authoring:question_create", kwargs={"pk": survey.pk})
    )
    page.fill("#id_text", "Have you ever cheated on an exam?")
    page.get_by_label("Target margin of error (percentage points)").fill("3")
    page.get_by_label("Share expected without the effect (%)").fill("10")
    page.get_by_label("Share to detect (%)").fill("20")
    page.get_by_label("Power (%)").fill("90")
    page.fill("#id_requested_epsilon", "1")
    spec = page.evaluate(
        "url => fetch(url + '?' + new URLSearchParams(new FormData("
        "document.getElementById('question-form')))).then(r => r.json())",
        page.get_attribute("#question-form", "data-preview-url"),
    )["spec"]
    mechanism = ldp.build(spec)
    needed = ldp.sample_size(mechanism, 0.03)
    detect = ldp.sample_size_for_power(mechanism, 0.1, 0.2, 0.05, 0.9)
    _wait_for(page, "#plan-margin", str(needed))
    _wait_for(page, "#plan-difference", str(detect))
    assert page.text_content("#plan-margin-label").strip() == (
        "Respondents needed for ±3 percentage points"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "planning-desktop.png"), full_page=True)

    page.fill("#id_requested_epsilon", "2")
    _wait_for(page, "#preview-epsilon", mechanism_epsilon_for(page))
    assert int(page.text_content("#plan-margin")) < needed
    assert int(page.text_content("#plan-difference")) < detect

    page.get_by_label("Power (%)").fill("100")
    page.wait_for_function(
        "() => document.getElementById('plan-margin').textContent"
        ".startsWith('Fix the planning figures')"
    )
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ARTIFACTS / "planning-phone.png"), full_page=True)
    assert problems == []


def mechanism_epsilon_for(page) -> str:
    """The delivered ε the preview endpoint reports for the form as it stands."""
    data = page.evaluate(
        "url => fetch(url + '?' + new URLSearchParams(new FormData("
        "document.getElementById('question-form')))).then(r => r.json())",
        page.get_attribute("#question-form", "data-preview-url"),
    )
    return data["epsilon_display"]
