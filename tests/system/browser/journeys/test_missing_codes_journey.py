"""A survey with sections, display logic and optional questions, fielded with
the keyboard only in headless Chromium, then read back as missing-value codes.

"Next" on an incomplete section names and focuses the question, in the
server's words; a section whose every question display logic hides is passed
over; "Send" with a problem focuses it and links to its section.  What the
device sends tells a declined question from one left blank, and the
dashboard, the API, the estimates CSV and every per-respondent file (the wide
CSV, SPSS, Stata, and R running the exported script) count each question's
answered, not shown, left blank and declined alike, by the documented codes
(``surveys.collection.missing``).
"""

from __future__ import annotations

import csv
import io
import subprocess
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pyreadstat
import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from surveys.analysis.tallies import services, snapshots
from surveys.api_tokens.services import api_token_create
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection import missing
from surveys.collection.models import SkippedAnswer
from tests.system.browser.journeys.conftest import DESKTOP

pytestmark = pytest.mark.django_db(transaction=True)

DRIVES = "Do you drive?"
LATE = "Have you been late for work this month?"
FOLLOW = "Have you driven after drinking?"
SPEEDING = "Have you driven too fast?"
BAND = "Which age band are you in?"
CARDS = "Have you cheated at cards?"
EXAM = "Have you cheated on an exam?"
# What the respondent does: answered, not shown, left blank, declined.
EXPECTED = {
    DRIVES: (1, 0, 0, 0),
    LATE: (1, 0, 0, 0),
    FOLLOW: (0, 1, 0, 0),
    SPEEDING: (0, 0, 0, 1),
    BAND: (0, 0, 1, 0),
    CARDS: (0, 0, 1, 0),
    EXAM: (1, 0, 0, 0),
}
FIELDS = ("answered", "not_shown", "left_blank", "declined")
# The outcome of each missing-value code, as each per-respondent file writes it.
OUTCOME = {
    missing.NOT_SHOWN: "not_shown",
    missing.BLANK: "left_blank",
    missing.DECLINED: "declined",
}
STATA_LETTERS = {missing.NOT_SHOWN: "a", missing.BLANK: "b", missing.DECLINED: "c"}
# R runs the exported script on the exported CSV, then prints for each
# question whether its cell is NA and the reason column's label.
R_COUNTS = r"""
for (q in grep("^q[0-9]+$", names(d), value = TRUE)) {
  why <- d[[paste0(q, "_missing")]]
  why <- if (is.null(why)) rep(NA, nrow(d)) else as.character(why)
  for (i in seq_len(nrow(d))) {
    cat("ROW", q, is.na(d[[q]][i]), ifelse(is.na(why[i]), "-", why[i]), "\n",
        sep = "\t")
  }
}
"""


@pytest.fixture
def sectioned(researcher):
    """ "About you" (an unprotected driver and a protected question),
    "Driving" (one question, shown only to drivers) and "Habits" (an optional
    protected, an optional unprotected, an optional protected and a required
    protected question)."""
    survey = authoring.survey_create(
        owner=researcher, title="Habits", epsilon_budget=8.0
    )
    drives = authoring.question_create(
        survey=survey,
        text=DRIVES,
        privacy=PrivacyConfig(kind="yes_no", is_private=False),
        not_private_acknowledged=True,
        section_title="About you",
    )
    authoring.question_create(
        survey=survey, text=LATE, privacy=PrivacyConfig(kind="yes_no")
    )
    authoring.question_create(
        survey=survey,
        text=FOLLOW,
        privacy=PrivacyConfig(kind="yes_no"),
        show_if={"question": drives.pk, "any_of": [1]},
        section_title="Driving",
    )
    authoring.question_create(
        survey=survey,
        text=SPEEDING,
        privacy=PrivacyConfig(kind="yes_no"),
        optional=True,
        section_title="Everyday habits",
    )
    authoring.question_create(
        survey=survey,
        text=BAND,
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("Under 40", "40 or over")
        ),
        not_private_acknowledged=True,
        optional=True,
    )
    for text, optional in ((CARDS, True), (EXAM, False)):
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=PrivacyConfig(kind="yes_no"),
            optional=optional,
        )
    return authoring.survey_publish(survey=survey, user=researcher)


def answer_page(browser, live_server, survey):
    """The answer page past the consent page, once the device is ready (its
    "Send" waits in the last section): (context, page, POSTs, script errors)."""
    context = browser.new_context(viewport=DESKTOP)
    posts: list = []
    context.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + f"/s/{survey.public_token}/")
    page.get_by_role("link", name="Take part").click()
    expect(page.locator("form[data-respond] button[type=submit]")).to_be_enabled()
    return context, page, posts, errors


def press(page, locator, key: str) -> None:
    """Focus ``locator`` and press ``key`` (the keyboard, never a click)."""
    locator.focus()
    page.keyboard.press(key)


def focused_id(page) -> str:
    return page.evaluate("document.activeElement && document.activeElement.id")


def item_counts(survey, client: Client, secret: str) -> dict[str, dict]:
    """Each question's counts as the dashboard, the API and the CSV give them."""
    ids = {q.pk: q.text for q in survey.questions.all()}
    page = client.get(reverse("analysis:dashboard", args=[survey.pk])).content.decode()
    dashboard = {}
    for pk, text in ids.items():
        start = page.index(f'data-item-counts="{pk}"')
        line = page[start : page.index("</p>", start)]
        dashboard[text] = tuple(
            int(line.split(f'data-field="{name}">', 1)[1].split("<", 1)[0])
            for name in FIELDS
        )
    document = client.get(
        reverse("analysis:api_survey", args=[survey.pk]),
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    ).json()
    api = {
        q["text"]: tuple(q["item_counts"][name] for name in FIELDS)
        for q in document["questions"] + document["not_protected"]
    }
    body = client.get(reverse("analysis:export_estimates_csv", args=[survey.pk]))
    rows = csv.DictReader(io.StringIO(body.content.decode("utf-8-sig")))
    estimates = {row["question"]: tuple(int(row[n]) for n in FIELDS) for row in rows}
    return {"dashboard": dashboard, "api": api, "estimates_csv": estimates}


def tally(survey, outcomes: Callable[[str], list[str]]) -> dict[str, tuple]:
    """Each question's (answered, not shown, left blank, declined) from a file,
    given each question's column stem ``q<position>`` → every row's outcome."""
    counted = {}
    for question in survey.questions.all():
        rows = outcomes(f"q{question.position}")
        counted[question.text] = tuple(rows.count(name) for name in FIELDS)
    return counted


def download(client: Client, survey, name: str) -> bytes:
    response = client.get(reverse(f"analysis:export_{name}", args=[survey.pk]))
    assert response.status_code == 200, (name, response.status_code)
    return (
        b"".join(response.streaming_content) if response.streaming else response.content
    )


def file_counts(survey, client: Client, folder: Path) -> dict[str, dict]:
    """Each question's counts as the wide CSV, SPSS and Stata files and R (the
    exported script run on the exported CSV) give them, read by their codes."""
    by_label = {missing.LABELS[r]: OUTCOME[r] for r in OUTCOME}
    by_code = {float(missing.CODES[r]): OUTCOME[r] for r in OUTCOME}
    by_letter = {STATA_LETTERS[r]: OUTCOME[r] for r in OUTCOME}
    wide = download(client, survey, "wide_csv_bom")
    (folder / f"survey-{survey.pk}-wide.csv").write_bytes(wide)
    rows = list(csv.DictReader(io.StringIO(wide.decode("utf-8-sig"))))

    def from_csv(stem: str) -> list[str]:
        return [
            "answered" if row[stem] != "" else by_label[row[f"{stem}_missing"]]
            for row in rows
        ]

    read = {}
    for name, reader in (("sav", pyreadstat.read_sav), ("dta", pyreadstat.read_dta)):
        (folder / f"wide.{name}").write_bytes(download(client, survey, name))
        read[name] = reader(str(folder / f"wide.{name}"), user_missing=True)[0]
    codes = {"sav": by_code, "dta": by_letter}

    def from_stat(name: str) -> Callable[[str], list[str]]:
        def outcomes(stem: str) -> list[str]:
            return [codes[name].get(v, "answered") for v in read[name][stem]]

        return outcomes

    (folder / "wide.R").write_bytes(download(client, survey, "r") + R_COUNTS.encode())
    run = subprocess.run(
        ["Rscript", "--vanilla", "wide.R"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    printed: dict[str, list[str]] = {}
    for line in run.stdout.splitlines():
        if line.startswith("ROW\t"):
            _, stem, absent, why = line.split("\t")[:4]
            shown = "answered" if absent == "FALSE" else by_label[why]
            printed.setdefault(stem, []).append(shown)
    return {
        "wide_csv": tally(survey, from_csv),
        "sav": tally(survey, from_stat("sav")),
        "dta": tally(survey, from_stat("dta")),
        "r": tally(survey, lambda stem: printed[stem]),
    }


def test_a_keyboard_respondent_is_checked_per_section_and_every_export_counts_the_codes(
    live_server, browser, sectioned, researcher, artifacts, tmp_path
):
    questions = {q.text: q for q in sectioned.questions.all()}
    context, page, posts, errors = answer_page(browser, live_server, sectioned)
    about = page.locator("#section-1")
    expect(page.locator("#section-position")).to_have_text("Section 1 of 2")

    # "Next" on an incomplete section: the server's words, and the focus.
    press(page, about.get_by_role("button", name="Next"), "Enter")
    drives = page.get_by_role("group", name=DRIVES)
    message = f"Please answer “{DRIVES}”."
    expect(page.locator(f"#error-q{questions[DRIVES].pk}")).to_have_text(message)
    expect(page.locator("#respond-status")).to_have_text(message)
    expect(drives.get_by_label("Yes")).to_be_focused()
    expect(about).to_be_visible()

    press(page, drives.get_by_label("No"), "Space")
    press(page, about.get_by_role("button", name="Next"), "Enter")
    late = f"Please answer “{LATE}”."
    expect(page.locator(f"#error-q{questions[LATE].pk}")).to_have_text(late)
    expect(page.get_by_role("group", name=LATE).get_by_label("Yes")).to_be_focused()
    press(page, page.get_by_role("group", name=LATE).get_by_label("Yes"), "Space")

    # "Driving" has nothing to show a non-driver: "Next" passes over it.
    press(page, about.get_by_role("button", name="Next"), "Enter")
    habits = page.locator("#section-3")
    expect(habits).to_be_visible()
    expect(page.locator("#section-2")).to_be_hidden()
    expect(page.locator("#section-3-heading")).to_be_focused()
    expect(page.locator("#section-position")).to_have_text("Section 2 of 2")

    # Declined, left blank (unprotected, then protected), and a required
    # question left unanswered: "Send" names it, focuses it, links its section.
    declined = habits.locator(f'[data-skip-for="{questions[SPEEDING].pk}"] input')
    press(page, declined, "Space")
    press(page, page.get_by_role("button", name="Send my answers"), "Enter")
    exam = page.get_by_role("group", name=EXAM)
    status = page.locator("#respond-status")
    expect(status).to_contain_text(f"Not sent: Please answer “{EXAM}”.")
    expect(exam.get_by_label("Yes")).to_be_focused()
    link = status.get_by_role("link", name="Go to Everyday habits")
    expect(link).to_have_attribute("href", "#section-3")
    page.screenshot(path=str(artifacts / "missing-codes-send-refused.png"))
    press(page, link, "Enter")
    expect(exam.get_by_label("Yes")).to_be_focused()
    assert not [p for p in posts if "/answer/" in p.url]

    page.keyboard.press("Space")
    press(page, page.get_by_role("button", name="Send my answers"), "Enter")
    page.wait_for_url("**/s/receipt/**")
    context.close()
    assert errors == []

    (body,) = [(r.post_data_buffer or b"").decode("latin-1") for r in posts]
    sent = urllib.parse.parse_qs(body, keep_blank_values=True)
    assert sent[f"q{questions[SPEEDING].pk}_skipped"] == ["declined"]
    assert sent[f"q{questions[BAND].pk}_skipped"] == ["blank"]
    assert sent[f"q{questions[CARDS].pk}_skipped"] == ["blank"]
    assert not [n for n in sent if n.startswith(f"q{questions[FOLLOW].pk}")]
    reasons = dict(SkippedAnswer.objects.values_list("question__text", "reason"))
    assert reasons == {SPEEDING: "declined", BAND: "blank", CARDS: "blank"}

    services.tallies_refresh(survey_id=sectioned.pk)
    snapshots.snapshot_refresh(survey_id=sectioned.pk, force=True)
    reader = Client()
    reader.force_login(researcher)
    secret = api_token_create(user=researcher, name="journey").secret
    counts = item_counts(sectioned, reader, secret)
    counts |= file_counts(sectioned, reader, tmp_path)
    assert set(counts) == {
        "dashboard", "api", "estimates_csv", "wide_csv", "sav", "dta", "r"
    }  # fmt: skip
    assert counts == {source: EXPECTED for source in counts}
