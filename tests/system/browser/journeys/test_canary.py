"""Canary (docs/testing.md, section 5): distinctive true answers are found nowhere.

The canary build
----------------
The respondent's page must load ``/s/randomizer.js`` with the Subresource
Integrity hash computed from the served bytes, and the project has no setting
that points the page at another randomizer file; swapping the module in the
test would also test a different file from the one respondents run.  So the
canary keeps the shipped randomizer byte for byte (its integrity check still
passes) and replaces the one thing it draws on: the browser's random words.
An init script makes every ``Uint32Array`` that ``crypto.getRandomValues``
fills hold one fixed word, chosen with the Python reference (which agrees with
the browser word for word) so that every protected question reports something
other than its true answer; the test then checks that the stored reports are
exactly what the reference computes from that word, so the build really lied.
Other draws (the submission's idempotency key) stay random.

The true answers are distinctive: option labels no page or log would contain
by chance, and a number (7351.25) on a grid of quarter steps.  After one
respondent answers (the first send is made to fail with a 500, by making the
ingestion service raise inside the live server, and is then resent), the test
collects every request the browser made (URL, headers, body), every cookie,
localStorage, sessionStorage, IndexedDB, Cache Storage and service workers,
every log record the server emitted with the root logger at DEBUG (as
LOG_LEVEL=DEBUG sets it; each logger keeps its configured level), every cell
of every database table, and the error email sent to ADMINS, and searches
them all.  Answer
indices, which are too short to search for as text, are checked where a report
can carry them: each report field sent and each report stored must not encode
the true answer.  A not protected question is the positive control: its answer
must be found where it is meant to be (the request and the database) and
nowhere else.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from playwright.sync_api import expect

import ldp
from ldp.exact import display_epsilon
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection import services as collection
from surveys.collection.models import Report, Submission
from tests.browser import lies, lying_script, lying_word
from tests.surveys.stored_reports import payloads
from tests.system.browser.journeys.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)

# (question, config, true answer as the respondent gives it, as ldp encodes it)
NUMBER = "7351.25"
GRID = {
    "low": Decimal(7325),
    "high": Decimal(7375),
    "step": Decimal("0.25"),
}  # 201 values
CANARY = [
    (
        "Have you ever shoplifted?",
        PrivacyConfig(kind="yes_no", mechanism="forced_response"),
        "Yes",
        1,
    ),
    (
        "Which animal did you smuggle?",
        PrivacyConfig(
            kind="single_choice",
            mechanism="grr",
            options=("Aardvark", "Bison", "Quokkazanzibar", "Dingo", "Emu"),
        ),
        "Quokkazanzibar",
        2,
    ),
    (
        "How often do you whisper to wombats?",
        PrivacyConfig(
            kind="ordinal",
            mechanism="ordinal",
            options=("Never", "Seldom", "Wombatwhisperoften", "Always"),
        ),
        "Wombatwhisperoften",
        2,
    ),
    (
        "How much did you earn off the books?",
        PrivacyConfig(kind="numeric", mechanism="geometric", **GRID),
        NUMBER,
        105,  # (7351.25 - 7325) / 0.25
    ),
    (
        "Which of these did you take?",
        PrivacyConfig(
            kind="multi_select",
            mechanism="padding_sampling",
            options=("Narwhalnectar", "Ocelotoolong", "Pangolinpier", "Quetzalquill"),
            max_selections=2,
        ),
        ("Narwhalnectar", "Pangolinpier"),
        [0, 2],
    ),
    (
        "Which of these do you keep at home?",
        PrivacyConfig(
            kind="multi_select",
            mechanism="multi_rr",
            options=("Axolotlamber", "Binturongblue", "Caracalcopper"),
        ),
        ("Binturongblue",),
        [1],
    ),
]
# Every form of a true answer distinctive enough to search for as text.
LABELS = ("Quokkazanzibar", "Wombatwhisperoften", "Narwhalnectar", "Pangolinpier")
LABELS += ("Binturongblue",)
NUMBER_FORMS = (NUMBER, "7351,25", "7351.250", "7351%2C25", "7351.2500")
SECRETS = LABELS + NUMBER_FORMS
# The positive control: a not protected answer, sent and stored as given.
PLAIN_TEXT = "How many kilometres did you commute last year?"
PLAIN = "4242.75"
PLAIN_GRID = {"low": Decimal(4225), "high": Decimal(4275), "step": Decimal("0.25")}
FAILURE = "forced failure for the canary"


@pytest.fixture
def canary_survey(django_user_model):
    owner = django_user_model.objects.create_user("grace", password="x" * 20)
    survey = authoring.survey_create(
        owner=owner, title="Canary survey", epsilon_budget=10.0
    )
    for text, config, _, _ in CANARY:
        authoring.question_create(survey=survey, text=text, privacy=config)
    authoring.question_create(
        survey=survey,
        text=PLAIN_TEXT,
        privacy=PrivacyConfig(kind="numeric", is_private=False, **PLAIN_GRID),
        not_private_acknowledged=True,
    )
    return authoring.survey_publish(survey=survey, user=owner)


class _Collect(logging.Handler):
    """Keeps every record as the text a log file or shipper could see."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []
        self.records: list[logging.LogRecord] = []
        self.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s")
        )

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.texts.append(self.format(record) + "\n" + repr(vars(record)))


@contextmanager
def server_logs() -> Iterator[_Collect]:
    """Every record the server logs with the root logger at DEBUG (as with
    LOG_LEVEL=DEBUG), from every thread, the live server's included."""
    collect = _Collect()
    loggers = [
        log
        for log in logging.root.manager.loggerDict.values()
        if isinstance(log, logging.Logger) and not log.propagate
    ]
    # Where records stop propagating, listen there too.
    attached = [logging.root, *loggers]
    level = logging.root.level
    logging.root.setLevel(logging.DEBUG)
    for log in attached:
        log.addHandler(collect)
    try:
        yield collect
    finally:
        for log in attached:
            log.removeHandler(collect)
        logging.root.setLevel(level)


def _cell(value: Any) -> str:
    if isinstance(value, memoryview | bytes):
        return bytes(value).decode("latin-1")
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def database_cells() -> dict[tuple[str, str], list[str]]:
    """Every cell of every table, as text, keyed by (table, column)."""
    cells: dict[tuple[str, str], list[str]] = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            name = connection.ops.quote_name(table)
            cursor.execute(f"SELECT * FROM {name}")  # noqa: S608 (introspected)
            columns = [column[0] for column in cursor.description]
            for row in cursor.fetchall():
                for column, value in zip(columns, row, strict=True):
                    if (table, column) == SNAPSHOT_DOCUMENT:
                        value = without_labels(value)
                    cells.setdefault((table, column), []).append(_cell(value))
    return cells


# The results snapshot lists the label of every option and grid value whatever
# was answered (the survey's definition, like the question's options); the
# canary looks at everything else in it.
SNAPSHOT_DOCUMENT = ("analysis_resultsnapshot", "document")


def without_labels(document):
    """A snapshot document (JSON text or parsed) with every "labels" list removed."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "labels"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(document) if isinstance(document, str) else document)


def found_in(cells: dict[tuple[str, str], list[str]], secret: str) -> set:
    return {key for key, values in cells.items() for v in values if secret in v}


BROWSER_STORAGE = """async () => ({
  localStorage: Object.entries(localStorage),
  sessionStorage: Object.entries(sessionStorage),
  indexedDB: await indexedDB.databases(),
  caches: await caches.keys(),
  serviceWorkers: (await navigator.serviceWorker.getRegistrations()).length,
  cookie: document.cookie,
})"""


def answer_truthfully(page) -> None:
    for text, config, truth, _ in CANARY:
        group = page.get_by_role("group", name=text)
        if config.kind == "numeric":
            group.get_by_role("textbox").fill(truth)
        elif config.kind == "multi_select":
            for label in truth:
                group.get_by_label(label, exact=True).check()
        else:
            group.get_by_label(truth, exact=True).check()
    plain = page.get_by_role("group", name=PLAIN_TEXT)
    plain.get_by_label("Your answer").fill(PLAIN)


def test_distinctive_true_answers_appear_nowhere_after_a_forced_500_and_retry(
    live_server, browser, canary_survey, settings, mailoutbox, monkeypatch
):
    settings.DEBUG = False
    settings.ADMINS = [("Operations", "ops@example.org")]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    questions = list(canary_survey.questions.all())
    private = {q.text: q for q in questions if q.is_private}
    plain = next(q for q in questions if not q.is_private)
    cases = [(ldp.build(private[text].spec), value) for text, _, _, value in CANARY]
    word = lying_word(cases)

    real_ingest = collection.submission_ingest
    calls: list[int] = []

    def fail_once(**kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError(FAILURE)
        return real_ingest(**kwargs)

    context = browser.new_context(viewport=PHONE)
    context.add_init_script(lying_script(word))
    requests: list = []
    context.on("request", lambda request: requests.append(request))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    with server_logs() as logs:
        page.goto(live_server.url + f"/s/{canary_survey.public_token}/")
        page.get_by_role("link", name="Take part").click()
        send = page.get_by_role("button", name="Send my answers")
        expect(send).to_be_enabled()
        expect(page.locator("#script-note")).to_contain_text("integrity check")
        answer_truthfully(page)
        monkeypatch.setattr(collection, "submission_ingest", fail_once)
        send.click()
        status = page.locator("#respond-status")
        expect(status).to_contain_text("The server answered 500.")
        expect(status).to_contain_text("resend exactly the same randomized answers")
        assert not Submission.objects.exists()
        assert len(mailoutbox) == 1  # sent before the 500 was answered
        page.get_by_role("button", name="Send again").click()
        page.wait_for_url("**/s/receipt/**")
        expect(page.get_by_text("This may differ from what you chose")).to_have_count(
            len(CANARY)
        )
        storage = page.evaluate(BROWSER_STORAGE)
        state = context.storage_state(indexed_db=True)
        cookies = context.cookies()
    seen = [
        {
            "method": r.method,
            "url": r.url,
            "headers": r.all_headers(),
            "body": (r.post_data_buffer or b"").decode("latin-1"),
        }
        for r in requests
    ]
    context.close()
    assert errors == []
    assert len(calls) == 2

    # The build lied: each stored report is the reference's output for the
    # word, and none encodes the true answer.
    stored = dict(payloads(Report.objects.all(), "question_id"))
    assert Submission.objects.count() == 1
    for (mechanism, truth), (text, _, _, _) in zip(cases, CANARY, strict=True):
        report = stored[private[text].pk]
        assert report == mechanism.randomize_one(truth, lambda: word), text
        assert lies(mechanism, truth, report), text

    # Requests: both sends carried the same body, made only of reports.
    posts = [s for s in seen if s["method"] == "POST"]
    assert len(posts) == 2
    assert posts[0]["body"] == posts[1]["body"]
    fields = urllib.parse.parse_qs(posts[0]["body"], keep_blank_values=True)
    # "opened": the server's signed "page loaded while open" stamp (grace period).
    expected = {"csrfmiddlewaretoken", "idempotency_key", "survey_revision", "opened"}
    expected |= {f"q{q.pk}_report" for q in private.values()}
    expected |= {f"q{q.pk}_spec_revision" for q in private.values()}
    assert set(fields) == expected | {f"q{plain.pk}"}
    for (mechanism, truth), (text, _, _, _) in zip(cases, CANARY, strict=True):
        sent = json.loads(fields[f"q{private[text].pk}_report"][0])
        assert lies(mechanism, truth, sent), text
    assert fields[f"q{plain.pk}"] == [PLAIN]

    # Browser storage: nothing kept but the CSRF cookie, the device's note
    # that it answered this survey and its memory of this site, which holds
    # exactly the randomized reports it sent and the wording fingerprints of
    # the protected questions it was asked (no answer, no receipt, nothing
    # else).
    kept = dict(storage["localStorage"])
    memory = json.loads(kept.pop("deniable.memory"))
    assert set(memory) == {"format", "given", "contents", "asked"}
    assert len(memory["asked"]) == len(private)
    for asked in memory["asked"].values():
        assert set(asked) == {"day", "milli"}
    remembered = sorted(
        entry["report"]
        for content in memory["contents"].values()
        for entry in content["reports"]
    )
    assert remembered == sorted(fields[f"q{q.pk}_report"][0] for q in private.values())
    ((key, note),) = kept.items()
    assert key == f"deniable.answered.{canary_survey.public_token}"
    note = json.loads(note)
    assert set(note) == {"answered", "expires", "spentMilli"}
    assert note["answered"] is True
    assert re.fullmatch(r"\d{4}-\d{2}", note["expires"])
    assert note["spentMilli"] == int(
        display_epsilon(
            sum(ldp.build(q.spec).epsilon_exact for q in private.values())
        ).replace(".", "")
    )
    assert storage["sessionStorage"] == []
    assert storage["indexedDB"] == storage["caches"] == []
    assert storage["serviceWorkers"] == 0
    assert [c["name"] for c in cookies] == ["csrftoken"]
    assert all(not origin.get("indexedDB") for origin in state["origins"])

    # The error email: sent for the 500, with the POST masked.
    assert len(mailoutbox) == 1
    email = mailoutbox[0]
    assert email.to == ["ops@example.org"]
    assert "Internal Server Error" in email.subject
    email_text = "\n".join(
        [email.subject, email.body]
        + [content for content, _ in getattr(email, "alternatives", [])]
    )
    assert FAILURE in email_text
    assert f"q{plain.pk}" in email_text and "********************" in email_text

    # The server logs: the 500 was logged at ERROR, with its traceback.
    assert any(
        r.levelno == logging.ERROR and r.exc_info and FAILURE in str(r.exc_info[1])
        for r in logs.records
    )
    log_text = "\n".join(logs.texts)

    places = {
        "requests": json.dumps(seen, ensure_ascii=False),
        "browser storage": json.dumps([storage, state, cookies], ensure_ascii=False),
        "server logs": log_text,
        "error email": email_text,
    }
    for where, text in places.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} found in {where}"
    cells = database_cells()
    definition = {("authoring_question", "options")}
    for secret in LABELS:
        assert found_in(cells, secret) == definition, secret
    for secret in NUMBER_FORMS:
        assert found_in(cells, secret) == set(), secret

    # The positive control is found where it is meant to be, and only there:
    # the stored unprotected answer, its tally, and the results' summary of
    # unprotected answers (its mean, median and range: with one respondent,
    # their answer).
    assert PLAIN in places["requests"]
    assert found_in(cells, PLAIN) == {
        ("collection_plainanswer", "value"),
        ("analysis_plainanswertally", "value"),
        ("analysis_resultsnapshot", "document"),
    }
    for where in ("browser storage", "server logs", "error email"):
        assert PLAIN not in places[where], f"the plain answer reached {where}"


# --- optional questions: a skip sends only "skipped" -------------------------------
SKIPPED_LABEL = "Capybaracrimson"
OPTIONAL_CHOICE = "Which shade did you paint the statue?"
OPTIONAL_NUMBER = "How many statues did you paint?"
OPTIONAL_PLAIN = "How old is your bicycle, in years?"


@pytest.fixture
def optional_survey(django_user_model):
    owner = django_user_model.objects.create_user("hedy", password="x" * 20)
    survey = authoring.survey_create(
        owner=owner, title="Optional canary", epsilon_budget=10.0
    )
    text, config, _, _ = CANARY[0]
    authoring.question_create(survey=survey, text=text, privacy=config)
    authoring.question_create(
        survey=survey,
        text=OPTIONAL_CHOICE,
        privacy=PrivacyConfig(
            kind="single_choice",
            mechanism="grr",
            options=("Ochre", SKIPPED_LABEL, "Teal"),
        ),
        optional=True,
    )
    authoring.question_create(
        survey=survey,
        text=OPTIONAL_NUMBER,
        privacy=PrivacyConfig(kind="numeric", mechanism="geometric", **GRID),
        optional=True,
    )
    authoring.question_create(
        survey=survey,
        text=OPTIONAL_PLAIN,
        privacy=PrivacyConfig(kind="numeric", is_private=False, **PLAIN_GRID),
        not_private_acknowledged=True,
        optional=True,
    )
    return authoring.survey_publish(survey=survey, user=owner)


def test_skipped_optional_questions_send_only_the_skipped_marker(
    live_server, browser, optional_survey
):
    from surveys.collection.models import PlainAnswer, SkippedAnswer

    required, choice, number, plain = optional_survey.questions.all()
    context = browser.new_context(viewport=PHONE)
    requests: list = []
    context.on("request", lambda request: requests.append(request))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    with server_logs() as logs:
        page.goto(live_server.url + f"/s/{optional_survey.public_token}/")
        expect(page.locator("[data-skips]")).to_contain_text(
            "the server sees that you skipped it"
        )
        page.get_by_role("link", name="Take part").click()
        send = page.get_by_role("button", name="Send my answers")
        expect(send).to_be_enabled()
        page.get_by_role("group", name=CANARY[0][0]).get_by_label("Yes").check()
        # A true answer chosen, then withdrawn with "Prefer not to answer".
        group = page.get_by_role("group", name=OPTIONAL_CHOICE)
        group.get_by_label(SKIPPED_LABEL, exact=True).check()
        group.get_by_label("Prefer not to answer").check()
        expect(group.get_by_label(SKIPPED_LABEL, exact=True)).not_to_be_checked()
        # A number typed, then withdrawn the same way; the plain one left blank.
        numbers = page.get_by_role("group", name=OPTIONAL_NUMBER)
        numbers.get_by_role("textbox").fill(NUMBER)
        numbers.get_by_label("Prefer not to answer").check()
        expect(numbers.get_by_role("textbox")).to_have_value("")
        send.click()
        page.wait_for_url("**/s/receipt/**")
        expect(page.get_by_text("You skipped this question")).to_have_count(3)
        storage = page.evaluate(BROWSER_STORAGE)
    posts = [r for r in requests if r.method == "POST"]
    bodies = [(r.post_data_buffer or b"").decode("latin-1") for r in posts]
    seen = json.dumps(
        [{"url": r.url, "headers": r.all_headers()} for r in requests] + bodies
    )
    context.close()
    assert errors == []

    # The body: the required question's report, and for each skipped question
    # its marker alone (no report field, no spec revision, no answer).
    (body,) = bodies
    fields = urllib.parse.parse_qs(body, keep_blank_values=True)
    assert set(fields) == {
        "csrfmiddlewaretoken",
        "idempotency_key",
        "survey_revision",
        "opened",  # the signed "page loaded while open" stamp (never stored)
        f"q{required.pk}_report",
        f"q{required.pk}_spec_revision",
        f"q{choice.pk}_skipped",
        f"q{number.pk}_skipped",
        f"q{plain.pk}_skipped",
    }
    # "Prefer not to answer" is a declined question; the plain one left blank.
    markers = ((choice, "declined"), (number, "declined"), (plain, "blank"))
    for question, marker in markers:
        assert fields[f"q{question.pk}_skipped"] == [marker]

    # Stored: one report, three skips, no plain answer.
    assert [r.question_id for r in Report.objects.all()] == [required.pk]
    assert set(SkippedAnswer.objects.values_list("question_id", flat=True)) == {
        choice.pk,
        number.pk,
        plain.pk,
    }
    assert not PlainAnswer.objects.exists()

    # The device spent only the ε of the report it sent, and its memory of
    # this site counts that send alone.
    kept = dict(storage["localStorage"])
    memory = json.loads(kept.pop("deniable.memory"))
    ((_, note),) = kept.items()
    spent = int(
        display_epsilon(ldp.build(required.spec).epsilon_exact).replace(".", "")
    )
    assert json.loads(note)["spentMilli"] == spent
    assert [given["milli"] for given in memory["given"]] == [spent]
    assert storage["sessionStorage"] == []

    # The withdrawn true answers are nowhere but in the question's definition.
    places = {
        "requests": seen,
        "browser storage": json.dumps(storage),
        "server logs": "\n".join(logs.texts),
    }
    for where, text in places.items():
        for secret in (SKIPPED_LABEL, *NUMBER_FORMS):
            assert secret not in text, f"{secret!r} found in {where}"
    cells = database_cells()
    assert found_in(cells, SKIPPED_LABEL) == {("authoring_question", "options")}
    for secret in NUMBER_FORMS:
        assert found_in(cells, secret) == set(), secret
