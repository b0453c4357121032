"""A respondent through a multi-section survey with an optional question and a
panel redirect, in Chromium at desktop and phone sizes, Back/Next by keyboard.

The panel's completion address is an https site outside the test; the browser
context answers it with a page of its own (nothing of the project is replaced).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.models import Report, SkippedAnswer, Submission
from tests.system.browser.journeys.conftest import DESKTOP, PHONE

pytestmark = pytest.mark.django_db(transaction=True)

PANEL = "https://panel.example/complete"
CODE = "C0MPLETE42"
# The panel's own page (the accessibility gate checks it too).
PANEL_PAGE = (
    '<!doctype html><html lang="en"><title>Panel</title>'
    "<main><h1>Panel: thank you</h1></main></html>"
)


@pytest.fixture
def sectioned_survey(researcher) -> Survey:
    survey = authoring.survey_create(
        owner=researcher,
        title="Sections study",
        completion_code=CODE,
        completion_redirect_url=PANEL + "?cc={code}",
    )
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
        section_title="About exams",
        section_intro="Three short sections.",
    )
    authoring.question_create(
        survey=survey,
        text="Have you ever copied homework?",
        privacy=PrivacyConfig(kind="yes_no"),
        optional=True,
        section_title="About homework",
    )
    authoring.question_create(
        survey=survey,
        text="Which year are you in?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("First", "Second")
        ),
        not_private_acknowledged=True,
        section_title="About you",
    )
    return authoring.survey_publish(survey=survey, user=researcher)


def focused_id(page) -> str:
    return page.evaluate("document.activeElement.id")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_sections_one_at_a_time_with_a_skip_then_the_panel_redirect(
    live_server, browser, sectioned_survey, artifacts, size
):
    context = browser.new_context(viewport=DESKTOP if size == "desktop" else PHONE)
    context.route(
        PANEL + "**",
        lambda route: route.fulfill(
            status=200, content_type="text/html", body=PANEL_PAGE
        ),
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    posts: list[str] = []
    page.on(
        "request",
        lambda r: posts.append(r.url) if r.method == "POST" else None,
    )

    def shot(name: str) -> None:
        page.screenshot(
            path=str(artifacts / f"respondent-flow-{size}-{name}.png"), full_page=True
        )

    page.goto(live_server.url + f"/s/{sectioned_survey.public_token}/")
    expect(page.locator("[data-skips]")).to_contain_text("skipped it")
    shot("consent")
    page.get_by_role("link", name="Take part").click()
    send = page.get_by_role("button", name="Send my answers")
    expect(page.get_by_text("Section 1 of 3")).to_be_visible()
    expect(page.get_by_role("heading", name="About exams")).to_be_visible()
    expect(page.get_by_role("heading", name="About homework")).to_be_hidden()
    expect(send).to_be_hidden()
    shot("section-1")

    # Section 1: answer, then Next with the keyboard; focus goes to the heading.
    page.get_by_role("group", name="Have you ever cheated on an exam?").get_by_label(
        "No"
    ).check()
    next_1 = page.locator("#section-1 [data-section-next]")
    next_1.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Section 2 of 3")).to_be_visible()
    assert focused_id(page) == "section-2-heading"
    expect(page.get_by_role("heading", name="About exams")).to_be_hidden()

    # Section 2: the optional question, skipped.
    homework = page.get_by_role("group", name="Have you ever copied homework?")
    homework.get_by_label("Yes").check()
    homework.get_by_label("Prefer not to answer").check()
    expect(homework.get_by_label("Yes")).not_to_be_checked()
    shot("section-2-skipped")
    page.locator("#section-2 [data-section-next]").focus()
    page.keyboard.press("Enter")
    assert focused_id(page) == "section-3-heading"

    # Back with the keyboard keeps what was chosen on the page.
    page.locator("#section-3 [data-section-back]").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Section 2 of 3")).to_be_visible()
    assert focused_id(page) == "section-2-heading"
    expect(homework.get_by_label("Prefer not to answer")).to_be_checked()
    page.locator("#section-2 [data-section-next]").focus()
    page.keyboard.press("Enter")

    # Section 3: the last one carries "Send"; nothing was sent before it.
    page.get_by_role("group", name="Which year are you in?").get_by_label(
        "Second"
    ).check()
    expect(send).to_be_visible()
    assert posts == []
    shot("section-3")
    send.click()
    page.wait_for_url(PANEL + "**")
    assert parse_qs(urlsplit(page.url).query) == {"cc": [CODE]}
    expect(page.get_by_role("heading", name="Panel: thank you")).to_be_visible()
    context.close()
    assert errors == []
    assert len(posts) == 1
    assert Submission.objects.count() == 1
    assert Report.objects.count() == 1
    assert SkippedAnswer.objects.get().question.text == (
        "Have you ever copied homework?"
    )


def test_a_missing_answer_keeps_next_in_its_section_and_names_it(
    live_server, browser, sectioned_survey
):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(live_server.url + f"/s/{sectioned_survey.public_token}/answer/")
    expect(page.get_by_text("Section 1 of 3")).to_be_visible()
    page.locator("#section-1 [data-section-next]").click()
    # The unanswered required question is in section 1: it stays, named.
    expect(page.get_by_text("Section 1 of 3")).to_be_visible()
    exam = page.get_by_role("group", name="Have you ever cheated on an exam?")
    expect(exam).to_be_visible()
    expect(exam).to_contain_text("Please answer “Have you ever cheated on an exam?”.")
    expect(exam.get_by_label("Yes")).to_be_focused()
    assert Submission.objects.count() == 0
    context.close()
