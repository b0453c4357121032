"""One study from start to end in headless Chromium: build, pilot, field,
remind, close, archive.

The researcher builds a multi-section survey in the builder (an unprotected
question that decides what is shown, protected yes/no and scale questions, an
optional question with "Prefer not to answer", a closing date, a target n and
a completion code), runs the simulated pilot and previews the survey as a
respondent (nothing stored), publishes, and fields it: one respondent answers
through the public link on a phone, moving between sections with the keyboard;
two people are invited by email from a CSV file (a real SMTP server the test
starts receives the mails), one answers from the emailed link on a desktop.  A
week later (the test moves the recipients' last-sent day back, as the email
journey does) a reminder reaches only the other, who answers from it: the
survey closes at its target, the public link shows the closed page and the
dashboard shows the tallies.  The researcher archives it (hidden from the list,
read-only), and the delete page offers the exports first.

Everything the researcher does goes through the pages; only the account, the
SMTP server and the passing of a week are set up outside the browser.
Screenshots of each step (the viewport) go to docs/screenshots/study-*.png,
which docs/study-walkthrough.md shows, and to test-artifacts/journeys/.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from surveys.authoring.models import Survey
from surveys.authoring.tasks import notify_survey_transitions
from surveys.collection.models import (
    PlainAnswer,
    Recipient,
    Report,
    SkippedAnswer,
    Submission,
)
from tests.conftest import ROOT
from tests.system.browser.journeys.conftest import DESKTOP, PHONE, mail_link, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = ROOT / "docs" / "screenshots"
SLOW = 60_000  # ms: a page that runs a job or the randomizer on a busy machine

TITLE = "Campus life study"
CODE = "CAMPUS-2026"
TARGET = 3
DRIVES = "Do you drive?"
DRINK_DRIVING = "Have you driven after drinking?"
CHEATED = "Have you ever cheated on an exam?"
STRESS = "How stressed were you during exams?"
STRESS_LEVELS = ("Not at all", "A little", "Very")
COPIED = "Have you ever copied homework?"
ANA, BEN = "ana@example.org", "ben@example.org"
INVITATION = r"http://[^\s]+/s/i/[\w-]+/"


@pytest.fixture(autouse=True)
def _patient_expectations():
    """Every ``expect`` waits up to SLOW on a loaded machine (then back to
    Playwright's default for the other tests)."""
    expect.set_options(timeout=SLOW)
    yield
    expect.set_options(timeout=None)


class Shots:
    """Viewport screenshots, into docs/screenshots/ and the artifacts folder."""

    def __init__(self, artifacts) -> None:
        DOCS.mkdir(parents=True, exist_ok=True)
        self.artifacts = artifacts

    def __call__(self, page, name: str, device: str, *, height: int = 0) -> None:
        """The viewport (its top ``height`` pixels if given) for the docs, the
        whole page for the artifacts."""
        filename = f"study-{name}-{device}.png"
        clip = None
        if height:
            clip = {
                "x": 0,
                "y": 0,
                "width": page.viewport_size["width"],
                "height": height,
            }
        page.screenshot(path=str(DOCS / filename), clip=clip)
        page.screenshot(path=str(self.artifacts / filename), full_page=True)


def watch(page, problems: list[str]):
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.set_default_timeout(SLOW)
    return page


# --- 1 build ----------------------------------------------------------------------
def add_question(
    page,
    text: str,
    *,
    kind: str = "yes_no",
    options: tuple[str, ...] = (),
    protected: bool = True,
    section: str = "",
    optional: bool = False,
    show_if: str = "",
    another: bool = True,
    shot=None,
) -> None:
    page.get_by_label("Question type").select_option(kind)
    page.get_by_label("Question:", exact=True).fill(text)
    if options:
        page.get_by_label("Answer options, one per line").fill("\n".join(options))
    if not protected:
        page.get_by_label("Not protected: the true answer is sent and stored").check()
        page.get_by_label("I understand this answer is not protected").check()
        expect(page.locator("#preview-epsilon")).to_have_text("not protected (0)")
    else:
        expect(page.locator("#preview-epsilon")).to_have_text(re.compile(r"^\d"))
    if section:
        page.get_by_label("Start a new section here: its title (optional)").fill(
            section
        )
    if optional:
        page.get_by_label("Optional: respondents may skip it").check()
    if show_if:
        page.get_by_label(show_if).check()
    expect(page.locator("#preview-error")).to_be_hidden()
    if shot is not None:
        page.locator("#display-logic").evaluate("logic => logic.scrollIntoView()")
        shot(page)
    name = "Save and add another" if another else "Save question"
    page.get_by_role("button", name=name, exact=True).click()
    expect(page.get_by_text("Question added.")).to_be_visible()


def build(page, base: str, shots: Shots) -> str:
    """Create the survey, its questions, schedule and code; the survey's URL."""
    page.get_by_role("link", name="New survey").click()
    page.get_by_label("Title").fill(TITLE)
    page.get_by_label("Privacy budget (total ε per respondent)").fill("4")
    page.get_by_label("Planned number of respondents").fill("400")
    page.get_by_label("Completion code").fill(CODE)
    page.get_by_role("button", name="Create survey").click()
    expect(page.get_by_text("Survey created. Now add its questions.")).to_be_visible()
    survey_url = page.url

    page.get_by_role("link", name="Add a question").click()
    add_question(page, DRIVES, protected=False, section="About you")
    add_question(
        page,
        DRINK_DRIVING,
        section="Driving and studying",
        show_if=f"“{DRIVES}” is “Yes”",
        shot=lambda page: shots(page, "build-logic", "desktop", height=600),
    )
    add_question(page, CHEATED)
    add_question(page, STRESS, kind="ordinal", options=STRESS_LEVELS)
    add_question(page, COPIED, section="Homework", optional=True, another=False)
    assert page.url == survey_url
    expect(page.locator(".question-card")).to_have_count(5)
    expect(page.locator("[data-field=condition]")).to_have_count(1)

    page.get_by_role("link", name="Schedule and access").click()
    closes = timezone.localtime() + timedelta(days=30)
    page.get_by_label("Closes at").fill(closes.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_label("Close automatically after this many responses").fill(str(TARGET))
    page.get_by_role("button", name="Save schedule").click()
    page.wait_for_url(survey_url)
    expect(page.locator("#lifecycle")).to_contain_text(
        f"Closes after {TARGET} responses."
    )
    expect(page.locator(".page-head .status")).to_have_text("Draft")
    page.locator("#questions-heading").evaluate("heading => heading.scrollIntoView()")
    shots(page, "build", "desktop")
    return survey_url


# --- 2 pilot and preview ----------------------------------------------------------
def pilot(page, shots: Shots) -> None:
    page.get_by_role("link", name=re.compile(r"^Simulated pilot at n = 400")).click()
    page.get_by_label(f"Expected shares for “{DRIVES}” (not protected) (%)").fill(
        "40, 60"
    )
    page.get_by_label(f"Expected shares for “{CHEATED}” (%)").fill("70, 30")
    page.get_by_role("button", name="Run the simulated pilot").click()
    results = page.locator("#pilot-results")
    expect(results).to_be_visible()
    expect(page.locator("#simulated-heading")).to_contain_text(
        "Results at n = 400 simulated respondents"
    )
    # Everyone answers "cheated"; only the simulated drivers see the follow-up.
    cheated, follow = (
        results.locator("section.result-card").filter(
            has=page.get_by_role("heading", name=re.compile(re.escape(text)))
        )
        for text in (CHEATED, DRINK_DRIVING)
    )
    expect(cheated.locator('[data-field="n"]')).to_have_text("400")
    drivers = int(follow.locator('[data-field="n"]').inner_text())
    assert 100 < drivers < 220  # about 40% of 400
    follow.evaluate("card => card.scrollIntoView()")
    shots(page, "pilot", "desktop")


def preview(browser, base: str, survey_url: str, shots: Shots, problems) -> None:
    """The draft previewed on a phone: the sections, nothing stored."""
    context = browser.new_context(viewport=PHONE)
    page = watch(context.new_page(), problems)
    sign_in(page, base)
    page.goto(survey_url)
    page.get_by_role("link", name="Preview as a respondent").click()
    expect(page.locator("#preview-banner")).to_contain_text(
        "Preview: nothing you enter is stored"
    )
    expect(page.get_by_text("Section 1 of 3")).to_be_visible()
    shots(page, "preview", "phone")
    context.close()


# --- 3 field ----------------------------------------------------------------------
def publish(page) -> str:
    if page.locator("#weak-protection-warning").count():
        page.get_by_label("I have read this and want to publish").check()
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_text("Published: the survey is open")).to_be_visible()
    link = page.get_by_role("listitem").filter(has_text="Public link for respondents")
    return link.get_by_role("link").inner_text()


def press(page, locator, key: str = "Enter") -> None:
    locator.focus()
    page.keyboard.press(key)


def answer_on_phone_with_the_keyboard(browser, link: str, shots: Shots, problems):
    """A driver answers through the public link, Next/Back by keyboard, and
    skips the optional question."""
    context = browser.new_context(viewport=PHONE)
    page = watch(context.new_page(), problems)
    page.goto(link)
    page.get_by_role("link", name="Take part").click()
    send = page.get_by_role("button", name="Send my answers")
    expect(page.get_by_text("Section 1 of 3")).to_be_visible()
    press(
        page,
        page.get_by_role("group", name=DRIVES).get_by_label("Yes", exact=True),
        "Space",
    )
    press(page, page.locator("#section-1 [data-section-next]"))
    expect(page.get_by_text("Section 2 of 3")).to_be_visible()
    follow = page.get_by_role("group", name=DRINK_DRIVING)
    expect(follow).to_be_visible()
    shots(page, "field", "phone")
    press(page, follow.get_by_label("No", exact=True), "Space")
    press(
        page,
        page.get_by_role("group", name=CHEATED).get_by_label("Yes", exact=True),
        "Space",
    )
    stress = page.get_by_role("group", name=STRESS)
    press(page, stress.get_by_label("A little", exact=True), "Space")
    press(page, page.locator("#section-2 [data-section-next]"))
    expect(page.get_by_text("Section 3 of 3")).to_be_visible()
    # Back and forward again: what was chosen stays.
    press(page, page.locator("#section-3 [data-section-back]"))
    expect(page.get_by_text("Section 2 of 3")).to_be_visible()
    expect(stress.get_by_label("A little", exact=True)).to_be_checked()
    press(page, page.locator("#section-2 [data-section-next]"))
    copied = page.get_by_role("group", name=COPIED)
    press(page, copied.get_by_label("Prefer not to answer"), "Space")
    expect(copied.get_by_label("Prefer not to answer")).to_be_checked()
    press(page, send)
    page.wait_for_url("**/s/receipt/**")
    expect(page.locator("[data-completion-code]")).to_have_text(CODE)
    expect(page.locator("[data-skipped]")).to_have_count(1)
    shots(page, "receipt", "phone")
    context.close()


def invite_by_email(page, people_csv, smtp, shots: Shots) -> None:
    page.get_by_role("link", name="Email invitations and reminders").click()
    page.get_by_label("CSV file of email addresses").set_input_files(str(people_csv))
    page.get_by_role("button", name="Import addresses").click()
    expect(page.get_by_role("status")).to_contain_text("2 recipients added")
    page.get_by_role("button", name="Send invitations").click()
    expect(page.get_by_role("status")).to_contain_text("2 emails sent")
    assert sorted(m["To"] for m in smtp.messages) == [ANA, BEN]
    shots(page, "invite", "desktop")


def answer_from_email(
    browser, link: str, viewport: dict, problems, *, drives: bool, shot=None
) -> None:
    """A recipient answers from their email's link, to the receipt."""
    context = browser.new_context(viewport=viewport)
    page = watch(context.new_page(), problems)
    page.goto(link)
    page.get_by_role("link", name="Take part").click()
    expect(page.get_by_text("Section 1 of 3")).to_be_visible()
    drove = "Yes" if drives else "No"
    page.get_by_role("group", name=DRIVES).get_by_label(drove, exact=True).check()
    page.locator("#section-1 [data-section-next]").click()
    if drives:
        page.get_by_role("group", name=DRINK_DRIVING).get_by_label(
            "Yes", exact=True
        ).check()
    else:
        expect(page.get_by_role("group", name=DRINK_DRIVING)).to_be_hidden()
    page.get_by_role("group", name=CHEATED).get_by_label("No", exact=True).check()
    page.get_by_role("group", name=STRESS).get_by_label("Very", exact=True).check()
    if shot is not None:
        page.locator("#section-2-heading").evaluate("h => h.scrollIntoView()")
        shot(page)
    page.locator("#section-2 [data-section-next]").click()
    page.get_by_role("group", name=COPIED).get_by_label("No", exact=True).check()
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    expect(page.locator("[data-completion-code]")).to_have_text(CODE)
    context.close()


# --- the journey ------------------------------------------------------------------
def test_a_study_is_built_piloted_fielded_reminded_closed_and_archived_in_the_browser(
    live_server, browser, researcher, smtp, artifacts, tmp_path
):
    base = live_server.url
    shots = Shots(artifacts)
    problems: list[str] = []
    desk = browser.new_context(viewport=DESKTOP)
    page = watch(desk.new_page(), problems)
    sign_in(page, base)

    # 1 Build.
    survey_url = build(page, base, shots)

    # 2 Pilot, and preview as a respondent: nothing is stored.
    pilot(page, shots)
    preview(browser, base, survey_url, shots, problems)
    assert not Submission.objects.exists()

    # 3 Field: publish, the public link on a phone, invitations by email.
    page.goto(survey_url)
    link = publish(page)
    answer_on_phone_with_the_keyboard(browser, link, shots, problems)
    people = tmp_path / "people.csv"
    people.write_text(f"name,email\nAna,{ANA}\nBen,{BEN}\n")
    invite_by_email(page, people, smtp, shots)
    answer_from_email(
        browser,
        mail_link(smtp.to(ANA)[0], INVITATION),
        DESKTOP,
        problems,
        drives=False,
        shot=lambda ana: shots(ana, "field", "desktop"),
    )
    assert Submission.objects.filter(is_test=False).count() == 2

    # 4 Remind: a week later, only Ben (link unused) gets a reminder.
    Recipient.objects.update(last_sent_on=timezone.localdate() - timedelta(days=7))
    page.reload()
    expect(page.locator("#recipient-counts")).to_contain_text("Answered (link used)")
    answered = page.locator("#recipient-counts").get_by_role(
        "row", name=re.compile("Answered")
    )
    expect(answered).to_contain_text("1")
    page.get_by_role("button", name="Send a reminder").click()
    expect(page.get_by_role("status")).to_contain_text("1 email sent")
    assert len(smtp.to(ANA)) == 1
    assert len(smtp.to(BEN)) == 2
    invited, reminded = smtp.to(BEN)
    assert mail_link(invited, INVITATION) == mail_link(reminded, INVITATION)
    expect(
        page.locator("#recipient-counts").get_by_role(
            "row", name=re.compile("Reminders sent")
        )
    ).to_contain_text("1")
    shots(page, "remind", "desktop")

    # 5 Close: Ben's answer from the reminder is the target's third response.
    answer_from_email(
        browser, mail_link(smtp.to(BEN)[1], INVITATION), PHONE, problems, drives=True
    )
    # Beat's task (run here in-process) tells the owner it closed.
    notify_survey_transitions()
    (closing,) = smtp.to(researcher.email)
    assert "has closed" in closing["Subject"]
    closed = watch(browser.new_context(viewport=PHONE).new_page(), problems)
    closed.goto(link)
    expect(closed.get_by_role("alert")).to_contain_text("This survey has closed")
    shots(closed, "closed", "phone")
    page.goto(survey_url)
    expect(page.locator("#availability")).to_have_text(
        "Closed (it reached its target number of responses)"
    )
    expect(page.locator(".page-head .status")).to_have_text("Closed")
    page.get_by_role("link", name="Results").click()
    expect(page.locator("[data-freshness]")).to_contain_text(f"from {TARGET} responses")
    expect(page.locator(".page-head .status")).to_have_text("Closed")
    shots(page, "close", "desktop")

    # 6 Archive: hidden from the list, read-only; deleting offers the exports.
    page.goto(survey_url)
    page.get_by_role("button", name="Archive").click()
    expect(page.locator("#archived-notice")).to_be_visible()
    expect(page.get_by_role("link", name="Edit settings")).to_have_count(0)
    expect(page.get_by_role("link", name="Add a question")).to_have_count(0)
    page.get_by_role("link", name="My surveys").first.click()
    expect(page.get_by_role("link", name=TITLE)).to_have_count(0)
    page.get_by_role("link", name="Show archived").click()
    page.get_by_role("link", name=TITLE).click()
    shots(page, "archive", "desktop")
    page.get_by_role("link", name="Delete…").click()
    expect(page.get_by_role("heading", name="Export first")).to_be_visible()
    expect(page.get_by_role("link", name="Randomized reports (CSV)")).to_be_visible()
    shots(page, "delete", "desktop")
    desk.close()

    survey = Survey.objects.get(title=TITLE)
    assert survey.archived
    assert Submission.objects.filter(survey=survey, is_test=False).count() == TARGET
    assert SkippedAnswer.objects.filter(question__text=COPIED).count() == 1
    assert PlainAnswer.objects.count() == TARGET
    # Only the two drivers' devices sent a report for the follow-up question.
    assert Report.objects.filter(question__text=DRINK_DRIVING).count() == 2
    assert problems == []
