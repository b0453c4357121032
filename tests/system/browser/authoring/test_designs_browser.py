"""Custom forced-response splits and the unrelated-question design, in Chromium.

Built with the keyboard only; the preview shows each design's exact ε and the
device's own sentence, and the answer page says the same.  Screenshots go to
docs/screenshots/ (builder-custom-split-desktop.png,
builder-unrelated-question-phone.png).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring import services
from tests.conftest import ROOT
from tests.surveys.authoring.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)
pytest.importorskip("playwright.sync_api")

SCREENSHOTS = ROOT / "docs" / "screenshots"
PLACEHOLDER = "Worded by the respondent's device"


def _sign_in(page, base: str) -> None:
    page.goto(base + reverse("login"))
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url("**/surveys/")


def _wait_for(page, selector: str, text: str) -> None:
    page.wait_for_function(
        "([selector, text]) => document.querySelector(selector).textContent.trim()"
        " === text",
        arg=[selector, text],
    )


def _type_into(page, selector: str, text: str) -> None:
    page.focus(selector)
    page.keyboard.press("Control+A")
    page.keyboard.type(text)


def _choose(page, label: str) -> None:
    page.get_by_label(label).focus()
    page.keyboard.press("Space")


def _save(page) -> None:
    page.get_by_role("button", name="Save question").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/surveys/*/")


def test_researcher_builds_a_custom_split_and_an_unrelated_question_design(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = services.survey_create(owner=ada, title="Designs", epsilon_budget=10)
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    _sign_in(page, live_server.url)
    add = live_server.url + reverse(
        "authoring:question_create", kwargs={"pk": survey.pk}
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    # A custom split: 70% truthful, 20% forced "yes", 10% forced "no".
    page.goto(add)
    _type_into(page, "#id_text", "Have you ever cheated on an exam?")
    _choose(page, "Custom split: truthful, forced “yes”, forced “no”")
    assert page.is_hidden("#design-unrelated")
    assert page.is_hidden("#id_requested_epsilon")  # the design decides ε
    _type_into(page, "#id_fr_truthful", "70")
    _type_into(page, "#id_fr_forced_yes", "20")
    _type_into(page, "#id_fr_forced_no", "5")
    page.wait_for_function(
        "() => document.getElementById('preview-error').textContent"
        ".includes('add up to 95%')"
    )
    _type_into(page, "#id_fr_forced_no", "10")
    _wait_for(page, "#preview-epsilon", "2.08")  # ln 8, rounded up
    _wait_for(
        page,
        "#preview-sentence",
        "Moderate protection. Your device sends your true answer 70 times in 100; "
        "20 times it sends “Yes” and 10 times “No” instead, whatever your answer.",
    )
    assert "custom split" in page.text_content("#preview-mechanism")
    page.screenshot(
        path=str(SCREENSHOTS / "builder-custom-split-desktop.png"), full_page=True
    )
    _save(page)

    # The unrelated-question design: 60% truthful, innocuous "yes" 25%.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(add)
    _type_into(page, "#id_text", "Have you ever used a fake ID?")
    _choose(page, "Unrelated question: the device draws an innocuous answer")
    assert page.is_visible("#why-simulated")
    assert page.is_hidden("#design-custom")
    _type_into(page, "#id_uq_truthful", "60")
    _type_into(page, "#id_uq_prevalence", "25")
    _wait_for(page, "#preview-epsilon", "1.95")  # ln 7, rounded up
    sentence = (
        "Moderate protection. Your device sends your true answer 3 times in 5; "
        "otherwise it answers a made-up question for you, “Yes” 1 time in 4 and "
        "“No” the rest of the time."
    )
    _wait_for(page, "#preview-sentence", sentence)
    page.locator("#design-settings").scroll_into_view_if_needed()
    page.screenshot(
        path=str(SCREENSHOTS / "builder-unrelated-question-phone.png"), full_page=True
    )
    _save(page)

    custom, unrelated = survey.questions.order_by("position")
    assert custom.design == {
        "type": "custom",
        "truthful": "7/10",
        "forced_yes": "1/5",
        "forced_no": "1/10",
    }
    assert custom.spec["weights"] == {"truthful": 7, "forced_yes": 2, "forced_no": 1}
    assert unrelated.design == {
        "type": "unrelated_question",
        "truthful": "3/5",
        "prevalence": "1/4",
    }
    assert unrelated.spec["weights"] == {
        "truthful": 6,
        "forced_yes": 1,
        "forced_no": 3,
    }

    # The answer page words the design exactly as the builder did.
    survey = services.survey_publish(survey=survey, user=ada)
    respondent = browser.new_page()
    respondent.on("pageerror", lambda error: problems.append(str(error)))
    respondent.goto(
        live_server.url + reverse("collection:respond", args=[survey.public_token])
    )
    line = respondent.locator(f'[data-protection-for="{unrelated.pk}"] p.protection')
    line.wait_for()
    assert line.text_content().strip() == sentence
    assert problems == []
