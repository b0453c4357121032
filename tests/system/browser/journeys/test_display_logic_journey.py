"""Display logic in headless Chromium, on a phone and with the keyboard.

"Do you drive?" is unprotected; the protected "Have you driven after
drinking?" is shown only to drivers.  A non-driver's device sends nothing for
the hidden question (no report, no marker, no spec revision); a driver, using
the keyboard only, sees it appear, answers it, and its randomized report
arrives.  Changing the answer back hides the question again and clears it.
"""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.sync_api import expect

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import PlainAnswer, Report, Submission
from tests.system.browser.journeys.conftest import DESKTOP, PHONE, answer_page

pytestmark = pytest.mark.django_db(transaction=True)

DRIVES = "Do you drive?"
FOLLOW = "Have you driven after drinking?"


def branching_survey(researcher, *, then: tuple[str, ...] = ()):
    """Published: "Do you drive?", the follow-up for drivers, then ``then``."""
    survey = authoring.survey_create(owner=researcher, title="Driving habits")
    drives = authoring.question_create(
        survey=survey,
        text=DRIVES,
        privacy=PrivacyConfig(kind="yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    authoring.question_create(
        survey=survey,
        text=FOLLOW,
        privacy=PrivacyConfig(kind="yes_no"),
        show_if={"question": drives.pk, "any_of": [1]},
    )
    for text in then:
        authoring.question_create(
            survey=survey, text=text, privacy=PrivacyConfig(kind="yes_no")
        )
    return authoring.survey_publish(survey=survey, user=researcher)


@pytest.fixture
def branching(researcher):
    return branching_survey(researcher)


def test_a_hidden_question_sends_nothing_from_a_phone(
    live_server, browser, branching, artifacts
):
    drives, follow = branching.questions.all()
    context, page, posts, errors = answer_page(browser, live_server, branching, PHONE)
    expect(page.get_by_role("group", name=FOLLOW)).to_be_hidden()
    group = page.get_by_role("group", name=DRIVES)
    group.get_by_label("Yes").check()
    expect(page.get_by_role("group", name=FOLLOW)).to_be_visible()
    page.get_by_role("group", name=FOLLOW).get_by_label("Yes").check()
    group.get_by_label("No").check()  # changed: the follow-up hides and clears
    expect(page.get_by_role("group", name=FOLLOW)).to_be_hidden()
    page.screenshot(path=str(artifacts / "logic-hidden-phone.png"), full_page=True)
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    context.close()
    assert errors == []
    (body,) = [(r.post_data_buffer or b"").decode("latin-1") for r in posts]
    fields = urllib.parse.parse_qs(body, keep_blank_values=True)
    assert not [name for name in fields if name.startswith(f"q{follow.pk}")]
    assert fields[f"q{drives.pk}"] == ["0"]
    assert Submission.objects.count() == 1
    assert not Report.objects.exists()
    assert PlainAnswer.objects.get().value == 0


def test_a_shown_question_is_answered_with_the_keyboard_and_its_report_arrives(
    live_server, browser, branching, artifacts
):
    _, follow = branching.questions.all()
    context, page, posts, errors = answer_page(browser, live_server, branching, DESKTOP)
    page.get_by_role("group", name=DRIVES).get_by_label("Yes").focus()
    page.keyboard.press("Space")
    follow_group = page.get_by_role("group", name=FOLLOW)
    expect(follow_group).to_be_visible()
    follow_group.get_by_label("No").focus()
    page.keyboard.press("Space")
    expect(follow_group.get_by_label("No")).to_be_checked()
    page.screenshot(path=str(artifacts / "logic-shown-desktop.png"), full_page=True)
    page.get_by_role("button", name="Send my answers").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/s/receipt/**")
    context.close()
    assert errors == []
    (body,) = [(r.post_data_buffer or b"").decode("latin-1") for r in posts]
    fields = urllib.parse.parse_qs(body, keep_blank_values=True)
    assert f"q{follow.pk}_report" in fields
    assert [r.question_id for r in Report.objects.all()] == [follow.pk]


def test_questions_are_numbered_without_gaps_around_a_hidden_one(
    live_server, browser, researcher
):
    survey = branching_survey(researcher, then=("Have you cheated?",))
    context, page, _, errors = answer_page(browser, live_server, survey, DESKTOP)
    numbers = page.locator("fieldset.question:visible .question-number")
    expect(numbers).to_have_text(["Question 1.", "Question 2."])
    page.get_by_role("group", name=DRIVES).get_by_label("Yes").check()
    expect(numbers).to_have_text(["Question 1.", "Question 2.", "Question 3."])
    page.get_by_role("group", name=DRIVES).get_by_label("No").check()
    expect(numbers).to_have_text(["Question 1.", "Question 2."])
    context.close()
    assert errors == []
