"""A researcher's whole journey and their respondents', in headless Chromium.

The researcher signs in on the login page, builds a survey in the builder with
one question of every kind the builder offers (read from the page, so a new
kind fails here until the journey answers it) plus one not protected question,
watches the live preview, publishes, copies the public link and downloads
one-response invitations.  Respondents answer in fresh browser contexts, some
through the public link and some through invitations; one respondent's first
send fails on the network and is retried; a used invitation is refused.  The
researcher then reads the dashboard, the cross-tab, the breakdown and the
privacy view, and downloads every export from the page's links; the exports
must parse and agree with what the dashboard shows.

Everything is done through labels, roles and the keyboard, as a person would.
Screenshots (desktop and phone) go to test-artifacts/journeys/.
"""

from __future__ import annotations

import csv
import io
import json
import re
import urllib.parse
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pytest
from playwright.sync_api import expect

import ldp
from surveys.analysis.pages.dashboard import TABLE_ROWS_MAX
from surveys.analysis.pages.numbers import number, percent
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.kinds import facts
from surveys.authoring.models import Question
from surveys.collection.models import Invitation, Submission
from tests.system.browser.journeys.conftest import DESKTOP, PHONE, download, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "Student life, honestly"
PUBLIC_RESPONDENTS = 3
INVITED_RESPONDENTS = 3
RESPONDENTS = PUBLIC_RESPONDENTS + INVITED_RESPONDENTS
INVITATIONS = 4  # one more than are used


@dataclass(frozen=True)
class Step:
    """One question as the researcher types it, and each respondent's answer."""

    text: str
    answers: tuple  # respondent i answers answers[i]
    options: tuple[str, ...] = ()
    low: str = ""
    high: str = ""
    step: str = ""
    max_selections: str = ""
    epsilon: str = ""
    mechanism: str = ""
    protected: bool = True


# One protected question per kind the builder offers, keyed by kind.
PROTECTED = {
    "yes_no": Step(
        "Have you ever cheated on an exam?",
        answers=("Yes", "No", "Yes", "Yes", "No", "No"),
        mechanism="forced_response",
    ),
    "single_choice": Step(
        "Which income bracket are you in?",
        options=("Low", "Middle", "High"),
        answers=("Low", "Middle", "High", "Low", "Low", "Middle"),
    ),
    "ordinal": Step(
        "How stressed are you?",
        options=("Not at all", "A little", "Very"),
        answers=("A little", "Very", "Not at all", "Very", "A little", "A little"),
        epsilon="2",
    ),
    "numeric": Step(
        "How many drinks did you have last week?",
        low="0",
        high="10",
        step="1",
        answers=("2", "0", "7", "3", "10", "4"),
        mechanism="geometric",
    ),
    "multi_select": Step(
        "Which of these have you done?",
        options=("Skipped class", "Copied homework", "Used notes"),
        max_selections="2",
        answers=(
            ("Skipped class",),
            ("Copied homework", "Used notes"),
            (),
            ("Used notes",),
            ("Skipped class", "Used notes"),
            ("Copied homework",),
        ),
    ),
}
PLAIN = Step(
    "Which year are you in?",
    options=("First", "Second", "Third"),
    answers=("First", "Second", "Third", "First", "Second", "Third"),
    protected=False,
)
QUESTIONS: list[tuple[str, Step]] = [*PROTECTED.items(), ("single_choice", PLAIN)]


# --- the researcher ---------------------------------------------------------------
def preview(page, name: str):
    return page.locator(f"#preview-{name}")


def fill_question(page, kind: str, step: Step) -> None:
    """Fill the builder form for one question and check its live preview."""
    page.get_by_label("Question type").select_option(kind)
    page.get_by_label("Question:", exact=True).fill(step.text)
    if step.options:
        page.get_by_label("Answer options, one per line").fill("\n".join(step.options))
    if step.max_selections:
        page.get_by_label("Most options one respondent may select").fill(
            step.max_selections
        )
    if kind == "numeric":
        page.get_by_label("Lowest value").fill(step.low)
        page.get_by_label("Highest value").fill(step.high)
        page.get_by_label("Step:", exact=True).fill(step.step)
    if not step.protected:
        # A radio group moves with the arrow keys; the box ticks with Space.
        page.get_by_label("Protected: randomized on the respondent's device").focus()
        page.keyboard.press("ArrowDown")
        expect(
            page.get_by_label("Not protected: the true answer is sent")
        ).to_be_checked()
        expect(page.get_by_label("ε for this question")).to_be_hidden()
        page.get_by_label("I understand this answer is not protected").focus()
        page.keyboard.press("Space")
        expect(preview(page, "epsilon")).to_have_text("not protected (0)")
    else:
        if step.epsilon:
            page.get_by_label("ε for this question").fill(step.epsilon)
            expect(preview(page, "epsilon")).to_have_text(
                re.compile(rf"^{step.epsilon}(\.0+)?$")
            )
        if step.mechanism:
            page.get_by_label("Randomization method").select_option(step.mechanism)
            expect(preview(page, "mechanism")).to_have_text(
                mechanism_label(step.mechanism)
            )
        expect(preview(page, "epsilon")).to_have_text(re.compile(r"^\d"))
    expect(page.locator("#preview-body")).to_be_visible()
    expect(page.locator("#preview-error")).to_be_hidden()
    expect(preview(page, "sentence")).not_to_be_empty()
    # The whole survey as respondents' devices will word it, this question included.
    if step.protected:
        expect(preview(page, "survey-words")).to_contain_text("protection overall.")
    expect(preview(page, "margin")).not_to_be_empty()


def build_survey(page, base_url: str) -> str:
    """Create, fill and publish the survey; return the survey page's URL."""
    page.get_by_role("link", name="New survey").click()
    page.get_by_label("Title").fill(TITLE)
    page.get_by_label("Privacy budget (total ε per respondent)").fill("10")
    page.get_by_label("Planned number of respondents").fill("400")
    page.get_by_role("button", name="Create survey").click()
    expect(page.get_by_text("Survey created. Now add its questions.")).to_be_visible()
    survey_url = page.url

    page.get_by_role("link", name="Add a question").click()
    offered = page.get_by_label("Question type").locator("option")
    kinds = [offered.nth(i).get_attribute("value") for i in range(offered.count())]
    assert kinds == list(Question.Kind.values)
    # Open text is never protected; its own browser test fields it.
    assert set(PROTECTED) == {k for k in kinds if not facts(k).free_text}, (
        "every question kind the builder can protect needs a step in this journey"
    )
    for number_, (kind, step) in enumerate(QUESTIONS, start=1):
        fill_question(page, kind, step)
        last = number_ == len(QUESTIONS)
        name = "Save question" if last else "Save and add another"
        page.get_by_role("button", name=name, exact=True).click()
        expect(page.get_by_text("Question added.")).to_be_visible()
    assert page.url == survey_url
    expect(page.locator(".question-card")).to_have_count(len(QUESTIONS))
    expect(page.get_by_text("Not protected", exact=True)).to_have_count(1)

    # Every kind at once reads weakly protected overall: publishing asks first.
    expect(page.locator("#weak-protection-warning")).to_contain_text("more than 90%")
    page.get_by_role("button", name="Publish").click()
    expect(page.locator(".messages")).to_contain_text("more than 90%")
    expect(page.locator(".page-head .status")).to_have_text("Draft")
    page.get_by_label("I have read this and want to publish").check()
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_text("Published: the survey is open")).to_be_visible()
    expect(page.locator(".page-head .status")).to_have_text("Open")
    return survey_url


def public_link(page, base_url: str) -> str:
    link = page.get_by_role("listitem").filter(has_text="Public link for respondents")
    link = link.get_by_role("link")
    shown = link.inner_text()
    assert shown == base_url + link.get_attribute("href")
    return shown


def make_invitations(page, base_url: str, count: int, public: str) -> list[str]:
    page.get_by_role("link", name="One-response invitations").click()
    # The public link here is the whole address too, ready to copy.
    shown = page.get_by_text("The survey's public link").get_by_role("link")
    expect(shown).to_have_text(public)
    page.get_by_label("How many invitation links?").fill(str(count))
    name, body = download(
        page, page.get_by_role("button", name="Make and download links")
    )
    assert re.fullmatch(r"invitations-survey-\d+-\d{8}-\d{6}\.csv", name)
    rows = list(csv.reader(io.StringIO(body.decode("utf-8"))))
    assert rows[0] == ["invitation_url"]
    urls = [row[0] for row in rows[1:]]
    assert len(urls) == len(set(urls)) == count
    assert all(url.startswith(base_url + "/s/i/") for url in urls)
    return urls


# --- respondents ------------------------------------------------------------------
@dataclass
class Respondent:
    bodies: list[bytes]
    integrity: str
    errors: list[str]


def answer_all(page, i: int, *, keyboard: bool = False) -> None:
    """Answer respondent ``i``'s choices by label (or by keyboard alone)."""
    for kind, step in QUESTIONS:
        group = page.get_by_role("group", name=step.text)
        value = step.answers[i]
        if kind == "numeric":
            box = group.get_by_role("textbox")
            box.focus()
            if keyboard:
                page.keyboard.type(value)
            else:
                box.fill(value)
            continue
        for label in value if kind == "multi_select" else [value]:
            choice = group.get_by_label(label, exact=True)
            if keyboard:
                choice.focus()
                page.keyboard.press("Space")
            else:
                choice.check()
            expect(choice).to_be_checked()


def respond(
    browser,
    url: str,
    i: int,
    *,
    viewport: dict,
    screenshots=None,
    network_error: bool = False,
    keyboard: bool = False,
) -> Respondent:
    """One respondent, in a fresh browser context, from the link to the receipt."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    bodies: list[bytes] = []

    def send(route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        bodies.append(route.request.post_data_buffer)
        if network_error and len(bodies) == 1:
            route.abort("failed")  # the first send never reaches the server
        else:
            route.continue_()

    page.goto(url)
    expect(page.get_by_role("heading", name=TITLE)).to_be_visible()
    # Each protected question's strength, worded by the device from its spec.
    expect(page.locator(".protection[class*='strength-']")).to_have_count(
        len(PROTECTED)
    )
    if screenshots:
        page.screenshot(path=str(screenshots("consent")), full_page=True)
    page.get_by_role("link", name="Take part").click()
    page.wait_for_url("**/answer/")
    page.route("**/answer/", send)
    button = page.get_by_role("button", name="Send my answers")
    expect(button).to_be_enabled()
    integrity = page.locator("link[data-randomizer]").get_attribute("integrity")
    answer_all(page, i, keyboard=keyboard)
    if screenshots:
        page.screenshot(path=str(screenshots("answer")), full_page=True)
    if keyboard:
        button.focus()
        page.keyboard.press("Enter")
    else:
        button.click()
    if network_error:
        status = page.locator("#respond-status")
        expect(status).to_contain_text("The connection failed")
        expect(status).to_contain_text("exactly the same randomized answers")
        # The answers are sealed: changing them would need a new randomization.
        sealed = page.get_by_role("group", name=PROTECTED["yes_no"].text)
        expect(sealed.get_by_label("Yes", exact=True)).to_be_disabled()
        page.get_by_role("button", name="Send again").click()
    page.wait_for_url("**/s/receipt/**")
    expect(
        page.get_by_role("heading", name="Thank you: your answers arrived")
    ).to_be_visible()
    expect(page.get_by_text("This may differ from what you chose")).to_have_count(
        len(PROTECTED)
    )
    if screenshots:
        page.screenshot(path=str(screenshots("receipt")), full_page=True)
    context.close()
    return Respondent(bodies, integrity, errors)


def open_answer_page(browser, url: str):
    """A respondent who opens an invitation's form and leaves it open."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(url)
    page.get_by_role("link", name="Take part").click()
    expect(page.get_by_role("button", name="Send my answers")).to_be_enabled()
    return context, page


def late_send_is_refused(context, page) -> None:
    """The form was opened before its invitation was used elsewhere."""
    answer_all(page, 0)
    page.get_by_role("button", name="Send my answers").click()
    status = page.locator("#respond-status")
    expect(status).to_contain_text("This invitation link has already been used")
    expect(page.get_by_role("button", name="Send again")).to_have_count(0)
    context.close()


def used_invitation_is_refused(browser, url: str) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    response = page.goto(url)
    assert response.status == 410
    expect(page.get_by_role("alert")).to_contain_text(
        "This invitation link has already been used"
    )
    expect(page.get_by_role("link", name="Take part")).to_have_count(0)
    context.close()


# --- the results ------------------------------------------------------------------
def exports_section(page):
    return page.get_by_role("region", name="Download")


def export(page, item: str, link: str) -> tuple[str, bytes]:
    row = exports_section(page).get_by_role("listitem").filter(has_text=item)
    return download(page, row.get_by_role("link", name=link, exact=True))


def export_job(page, kind: str, label: str) -> tuple[str, bytes]:
    """Ask for a file written in the background, then download it (with no
    broker the job runs before the page comes back)."""
    row = exports_section(page).locator(f'[data-export="{kind}"]')
    row.get_by_role("button", name=f"Prepare the {label} file").click()
    page.wait_for_url("**#exports")
    row = exports_section(page).locator(f'[data-export="{kind}"]')
    return download(page, row.get_by_role("link", name=f"Download the {label} file"))


def reestimate(raw: dict) -> dict[int, list[float]]:
    """Estimates recomputed from the raw reports export with ldp alone."""
    specs = {
        (q["question_id"], int(rev)): spec
        for q in raw["questions"]
        if q["is_private"]
        for rev, spec in q["spec_revisions"].items()
    }
    groups = defaultdict(list)
    for report in raw["reports"]:
        groups[(report["question_id"], report["spec_revision"])].append(
            report["report"]
        )
    found = {}
    for (question_id, revision), reports in groups.items():
        mechanism = ldp.build(specs[(question_id, revision)])
        estimate = mechanism.estimate(mechanism.aggregate(reports))
        found[question_id] = [float(v) for v in estimate.estimate]
    return found


def check_dashboard_matches_exports(page, integrity: str) -> None:
    _, card_bytes = export(page, "Design card", "Design card")
    card = json.loads(card_bytes)
    assert card["randomizer_sha384"] == integrity
    assert [q["kind"] for q in card["questions"]] == [k for k, _ in QUESTIONS]
    private_ids = [q["question_id"] for q in card["questions"] if q["is_private"]]
    assert len(private_ids) == len(PROTECTED)

    _, estimates_json = export(page, "Estimates with intervals", "JSON")
    estimates = json.loads(estimates_json)
    _, estimates_csv = export(page, "Estimates with intervals", "CSV")
    rows = list(csv.DictReader(io.StringIO(estimates_csv.decode("utf-8-sig"))))
    assert estimates["pending_reports"] == 0
    assert [q["question_id"] for q in estimates["questions"]] == private_ids
    assert estimates["total_epsilon"] == pytest.approx(card["survey"]["total_epsilon"])

    for q in estimates["questions"]:
        assert q["n"] == RESPONDENTS, q["text"]
        section = page.locator(f"section#q{q['question_id']}")
        expect(section.get_by_role("heading")).to_contain_text(q["text"])
        expect(section.locator('dd[data-field="n"]')).to_have_text(str(RESPONDENTS))
        shown = section.locator('td[data-field="estimate"]').all_text_contents()
        # "*" marks an estimate outside its 0-100% interval (explained below it).
        for text in shown:
            if text.endswith("*"):
                assert not 0 <= float(text.rstrip("*%")) <= 100, text
        shown = [text.rstrip("*") for text in shown]
        if q["estimate_kind"] != "share":
            # Scales and numbers show their binned distribution; the raw
            # per-level inversion is only in the exports.
            assert shown == [], q["text"]
        else:
            assert shown == [percent(v) for v in q["estimate"]][:TABLE_ROWS_MAX]
        if q["mean"] is not None:
            expect(section.locator('[data-field="mean"]')).to_have_text(
                number(q["mean"])
            )
        mine = [r for r in rows if int(r["question_id"]) == q["question_id"]]
        assert {int(r["n"]) for r in mine} == {RESPONDENTS}
        per_answer = [
            r for r in mine if r["estimate"] and not r["row_type"].startswith("bin")
        ]
        assert [float(r["estimate"]) for r in per_answer] == q["estimate"]
    # The unprotected question's answers as sent, counted per option.
    (plain,) = estimates["not_protected"]
    assert plain["question_id"] == card["questions"][-1]["question_id"]
    assert plain["text"] == PLAIN.text
    assert plain["n"] == RESPONDENTS and sum(plain["counts"]) == RESPONDENTS

    _, raw_json = export_job(page, "reports_json", "JSON")
    raw = json.loads(raw_json)
    counts = defaultdict(int)
    for report in raw["reports"]:
        counts[report["question_id"]] += 1
    assert counts == dict.fromkeys(private_ids, RESPONDENTS)
    assert len(raw["plain_answers"]) == RESPONDENTS
    again = reestimate(raw)
    for q in estimates["questions"]:
        np.testing.assert_allclose(
            again[q["question_id"]], q["estimate"], rtol=1e-9, atol=1e-12
        )
    _, raw_csv = export_job(page, "reports_csv", "CSV")
    records = [r["record"] for r in csv.DictReader(io.StringIO(raw_csv.decode()))]
    assert records.count("report") == RESPONDENTS * len(PROTECTED)
    assert records.count("answer") == RESPONDENTS
    assert records.count("spec") == len(PROTECTED)


def check_crosstab_and_privacy(page) -> None:
    results_nav = page.get_by_role("navigation", name="Results")
    results_nav.get_by_role("link", name="Cross-tabs and breakdowns").click()
    yes_no, single = PROTECTED["yes_no"].text, PROTECTED["single_choice"].text
    page.get_by_label("Rows", exact=True).select_option(label=f"1. {yes_no}")
    page.get_by_label("Columns", exact=True).select_option(label=f"2. {single}")
    page.get_by_role("button", name="Show cross-tab").click()
    expect(page.locator('[data-field="crosstab-n"]')).to_have_text(str(RESPONDENTS))
    table = page.locator("table.crosstab-table")
    expect(table.locator("tbody tr")).to_have_count(2)  # Yes, No
    expect(table.locator("thead th")).to_have_count(
        len(PROTECTED["single_choice"].options)
    )

    page.get_by_label("Protected question", exact=True).select_option(
        label=f"1. {yes_no}"
    )
    page.get_by_label("Grouped by", exact=True).select_option(
        label=f"{len(QUESTIONS)}. {PLAIN.text}"
    )
    page.get_by_role("button", name="Show breakdown").click()
    for option in PLAIN.options:
        group = PLAIN.answers.count(option)
        expect(
            page.get_by_role("heading", name=f"{option} ({group} respondents)")
        ).to_be_visible()

    results_nav.get_by_role("link", name="Privacy").click()
    expect(page.get_by_role("heading", name="Privacy of this survey")).to_be_visible()
    expect(page.locator("svg.chart")).to_have_count(len(PROTECTED))
    expect(page.locator('[data-field="sequential"]')).to_have_text(re.compile(r"^\d"))


# --- the journey ------------------------------------------------------------------
def test_survey_built_in_the_browser_counts_each_respondent_once_in_results_and_exports(
    live_server, browser, researcher, artifacts
):
    base = live_server.url
    desk = browser.new_context(viewport=DESKTOP)
    page = desk.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    sign_in(page, base)
    survey_url = build_survey(page, base)
    link = public_link(page, base)
    invitations = make_invitations(page, base, INVITATIONS, link)
    page.reload()  # the download leaves the page as it was
    expect(
        page.get_by_text(f"{INVITATIONS} invitation links made so far, 0 used")
    ).to_be_visible()

    def shots(device: str):
        return lambda page_name: artifacts / f"respondent-{page_name}-{device}.png"

    seen = [
        respond(browser, link, 0, viewport=DESKTOP, screenshots=shots("desktop")),
        respond(
            browser, link, 1, viewport=PHONE, screenshots=shots("phone"), keyboard=True
        ),
        respond(browser, link, 2, viewport=PHONE, network_error=True),
    ]
    # Someone opens the first invitation's form, then it is used elsewhere.
    left_open = open_answer_page(browser, invitations[0])
    seen += [
        respond(browser, url, PUBLIC_RESPONDENTS + n, viewport=PHONE)
        for n, url in enumerate(invitations[:INVITED_RESPONDENTS])
    ]
    late_send_is_refused(*left_open)
    used_invitation_is_refused(browser, invitations[0])

    # The retried send was the byte-identical body, stored once.
    retried = seen[2].bodies
    assert len(retried) == 2
    assert retried[0] == retried[1]
    key = urllib.parse.parse_qs(retried[0].decode())["idempotency_key"][0]
    assert Submission.objects.filter(idempotency_key=key).count() == 1
    assert all(len(r.bodies) == 1 for i, r in enumerate(seen) if i != 2)
    assert Submission.objects.count() == RESPONDENTS
    # Each invitation is marked used; no submission says which one it came from.
    assert Invitation.objects.filter(used=True).count() == INVITED_RESPONDENTS
    assert [r.errors for r in seen] == [[]] * RESPONDENTS
    integrity = {r.integrity for r in seen}
    assert len(integrity) == 1

    page.reload()
    expect(
        page.get_by_text(
            f"{INVITATIONS} invitation links made so far, {INVITED_RESPONDENTS} used"
        )
    ).to_be_visible()
    page.get_by_role("navigation", name="Site").get_by_role(
        "link", name="My surveys"
    ).click()
    page.get_by_role("link", name=TITLE).click()
    assert page.url == survey_url
    expect(page.get_by_text(f"{RESPONDENTS} responses")).to_be_visible()
    page.get_by_role("link", name="Results").click()
    expect(page.get_by_role("heading", name=f"Results: {TITLE}")).to_be_visible()
    expect(page.locator("[data-freshness]")).to_contain_text(
        re.compile(rf"Computed \d+ s ago from {RESPONDENTS} responses\.")
    )
    expect(page.locator(".result-card h2")).to_have_count(len(PROTECTED) + 1)
    page.screenshot(path=str(artifacts / "dashboard-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(artifacts / "dashboard-phone.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    check_dashboard_matches_exports(page, integrity.pop())
    check_crosstab_and_privacy(page)
    assert problems == []
    desk.close()
