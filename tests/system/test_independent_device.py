"""The independent device against a hostile survey server, in Chromium.

The device (``manage.py build_device``) is served from an origin of its own;
the survey server is the real one behind a hostile proxy that adds
``Clear-Site-Data`` and a cookie to every response, and, per test, rewrites
the content objects, serves the same questions under a new survey address,
or redirects the report.  Chromium blocks third-party cookies.  For each, the
proof: no true answer leaves the device, nothing is randomized twice without
a yes, and the protection shown beside every control is the device's own
wording of the spec it checked.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

import ldp
from ldp.exact import display_epsilon
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection import content
from surveys.collection.models import PlainAnswer, SkippedAnswer, Submission
from tests.axe_gate import AxeGate, GatedBrowser, gate_actions
from tests.browser import headless_chromium, lying_script, lying_word
from tests.system.conftest import (
    AGE,
    ANSWERS,
    CHEATED,
    DESKTOP,
    PHONE,
    PROTECTED,
    SMOKED,
    make_survey,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Chromium's own switch for blocking third-party cookies (as browsers phase
# them out); the device needs none.
BLOCK_THIRD_PARTY_COOKIES = "--test-third-party-cookie-phaseout"
HOP_BY_HOP = {"connection", "transfer-encoding", "content-length", "keep-alive"}
FAKE_TOKEN = "a-new-survey-address"
# What the device says beside every control where words are typed.
TYPED_WARNING = "a sentence can identify the person who wrote it"
NOTE = "Anything else you would like to tell us?"
STORY = "Tell us about your last exam, if you like."
TRAVEL = "How did you come here today?"
TRAVELS = ("On foot", "By bus")
LATE = "Were you late this week?"
PIPED = "You came {{q7}}: was it a good way?"


@dataclass
class Hostile:
    """What the proxy does besides relaying."""

    rewrite: Callable[[dict], dict] | None = None
    aliases: dict[str, str] = field(default_factory=dict)
    redirect_reports: bool = False
    cookies_seen: list[str] = field(default_factory=list)
    posts: list[str] = field(default_factory=list)


def _proxy_handler(upstream: str, hostile: Hostile) -> type:
    target = urlsplit(upstream)

    class Proxy(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _relay(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            if self.headers.get("Cookie"):
                hostile.cookies_seen.append(self.headers["Cookie"])
            path = self.path
            for fake, real in hostile.aliases.items():
                path = path.replace(f"/{fake}/", f"/{real}/")
            if self.command == "POST":
                hostile.posts.append((body or b"").decode())
                if hostile.redirect_reports:
                    self._answer(307, {"Location": upstream + path}, b"")
                    return
            connection = http.client.HTTPConnection(target.hostname, target.port)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            headers["Host"] = self.headers["Host"]
            try:
                connection.request(self.command, path, body, headers)
                response = connection.getresponse()
                data = response.read()
            finally:
                connection.close()
            out = {
                k: v for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP
            }
            if (
                hostile.rewrite
                and self.command == "GET"
                and path.startswith("/s/device/")
                and response.status == 200
            ):
                data = json.dumps(hostile.rewrite(json.loads(data))).encode()
            self._answer(response.status, out, data)

        def _answer(self, status: int, headers: dict, data: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            # What a hostile server adds to every answer: wipe this site's
            # storage and cookies, and set a cookie of its own.
            self.send_header("Clear-Site-Data", '"cookies", "storage", "cache"')
            self.send_header("Set-Cookie", "tracker=hostile; Path=/; SameSite=None")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_OPTIONS = _relay

    return Proxy


@pytest.fixture
def bundle(tmp_path) -> Path:
    folder = tmp_path / "device"
    call_command("build_device", str(folder))
    return folder


def _serve(handler: Any) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def device_origin(bundle, settings) -> Iterator[str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    handler = partial(Quiet, directory=str(bundle))
    for origin in _serve(handler):
        settings.DEVICE_ORIGINS = [origin]
        settings.CORS_ALLOWED_ORIGINS = [origin]
        yield origin


@pytest.fixture
def hostile() -> Hostile:
    return Hostile()


@pytest.fixture
def proxy(live_server, hostile) -> Iterator[str]:
    yield from _serve(_proxy_handler(live_server.url, hostile))


@pytest.fixture
def browser(monkeypatch):
    gate = AxeGate(desktop=DESKTOP, phone=PHONE)
    with (
        headless_chromium(extra_args=[BLOCK_THIRD_PARTY_COOKIES]) as launched,
        gate_actions(gate, monkeypatch),
    ):
        yield GatedBrowser(launched, gate)
        gate.assert_clean()  # while the pages are still open


def _truth(survey) -> dict[int, Any]:
    """The true answer index of each protected question in ANSWERS."""
    labels = dict(ANSWERS)
    truth = {}
    for question in survey.questions.filter(is_private=True):
        label = labels[question.text]
        options = ["Yes", "No"] if question.kind == "yes_no" else question.options
        index = options.index(label)
        truth[question.pk] = [1, 0][index] if question.kind == "yes_no" else index
    return truth


def _open(browser, device_origin, proxy, token, *, lying: int | None = None):
    context = browser.new_context(viewport=DESKTOP)
    if lying is not None:
        context.add_init_script(lying_script(lying))
    page = context.new_page()
    page.goto(
        f"{device_origin}/index.html#{urlencode({'server': proxy, 'survey': token})}"
    )
    return page


def _answer(page) -> None:
    for text, label in ANSWERS:
        block = page.locator("fieldset.question").filter(has_text=text)
        block.get_by_label(label, exact=True).check()


def _wording_beside_every_control(page, survey) -> None:
    for question in survey.questions.all():
        block = page.locator(f"[data-protection-for='{question.pk}']")
        if not question.is_private:
            expect(block).to_contain_text("Not protected")
            if question.kind in {"short_text", "long_text"}:
                expect(block).to_contain_text(TYPED_WARNING)
            continue
        epsilon = display_epsilon(ldp.build(question.spec).epsilon_exact)
        expect(block).to_contain_text("Your device")
        expect(block).to_contain_text(f"ε = {epsilon}")


def _allowed(survey) -> set[str]:
    names = {"idempotency_key", "survey_revision", "opened"}
    for question in survey.questions.all():
        if question.is_private:
            names |= {f"q{question.pk}_report", f"q{question.pk}_spec_revision"}
        else:
            names.add(f"q{question.pk}")
        if question.other_option:
            names.add(f"q{question.pk}_other")
        if question.optional:
            names.add(f"q{question.pk}_skipped")
    return names


def test_the_device_sends_only_reports_and_words_every_control(
    browser, device_origin, proxy, hostile, survey
):
    truth = _truth(survey)
    word = lying_word(
        (ldp.build(q.spec), truth[q.pk])
        for q in survey.questions.filter(is_private=True)
    )
    page = _open(browser, device_origin, proxy, survey.public_token, lying=word)
    expect(page.locator("#device-form")).to_be_visible()
    _wording_beside_every_control(page, survey)
    _answer(page)
    page.get_by_role("button", name="Send my answers").click()
    expect(page.locator("#device-done")).to_be_visible()
    (posted,) = hostile.posts
    body = parse_qs(posted)
    assert set(body) <= _allowed(survey)
    for pk, true_index in truth.items():
        assert json.loads(body[f"q{pk}_report"][0]) != true_index
    assert Submission.objects.filter(survey=survey).count() == 1
    assert hostile.cookies_seen == []  # no cookie sent, though the server set one


def test_the_same_questions_under_a_new_survey_address_are_not_randomized_again(
    browser, device_origin, proxy, hostile, survey
):
    hostile.aliases[FAKE_TOKEN] = survey.public_token
    page = _open(browser, device_origin, proxy, survey.public_token)
    _answer(page)
    page.get_by_role("button", name="Send my answers").click()
    expect(page.locator("#device-done")).to_be_visible()
    # The server's Clear-Site-Data reached only its own origin: the device's
    # memory is where the device keeps it.
    again = page.context.new_page()
    again.goto(
        f"{device_origin}/index.html#"
        + urlencode({"server": proxy, "survey": FAKE_TOKEN})
    )
    notice = again.locator("#device-notice[data-state='seen']")
    expect(notice).to_be_visible()
    expect(notice.locator("#accept-seen")).to_be_visible()
    expect(again.get_by_role("button", name="Send my answers")).to_be_disabled()
    # The same address again: answered, nothing more is sent.
    same = page.context.new_page()
    same.goto(
        f"{device_origin}/index.html#"
        + urlencode({"server": proxy, "survey": survey.public_token})
    )
    expect(same.locator("#device-notice[data-state='answered']")).to_be_visible()
    expect(same.get_by_role("button", name="Send my answers")).to_be_disabled()
    assert len(hostile.posts) == 1
    assert Submission.objects.filter(survey=survey).count() == 1
    # With the respondent's yes, on the device's own button, it is answered anew.
    _answer(again)
    notice.locator("#accept-seen").click()
    again.get_by_role("button", name="Send my answers").click()
    expect(again.locator("#device-done")).to_be_visible()
    assert len(hostile.posts) == 2
    assert Submission.objects.filter(survey=survey).count() == 2


def _swap_text(data: dict) -> dict:
    """Another question text, the fingerprint left as it was."""
    item = data["questions"][0]
    item["text"] = item["text"].replace("cheated", "never cheated")
    return data


def _other_server(data: dict) -> dict:
    data["report_url"] = "https://elsewhere.example.net/collect"
    return data


@pytest.mark.parametrize(
    "rewrite", [_swap_text, _other_server], ids=["swapped wording", "report elsewhere"]
)
def test_content_the_server_rewrote_is_refused_and_nothing_is_sent(
    browser, device_origin, proxy, hostile, survey, rewrite
):
    hostile.rewrite = rewrite
    page = _open(browser, device_origin, proxy, survey.public_token)
    # The device fetches and hashes every object first: allow a loaded machine.
    expect(page.locator("#status")).to_contain_text(
        "does not match its fingerprint", timeout=15_000
    )
    expect(page.locator("#device-form")).to_have_count(0)
    assert hostile.posts == []


def test_a_weaker_spec_with_a_fresh_fingerprint_is_worded_as_what_it_is(
    browser, device_origin, proxy, hostile, survey
):
    weaker = ldp.build({"version": 1, "mechanism": "warner", "epsilon": 4.0}).spec
    cheated = survey.questions.get(text=PROTECTED[0])

    def weaken(data: dict) -> dict:
        for item in data["questions"]:
            body = json.loads(item["text"])
            if body["question"] == cheated.pk:
                body["spec"] = weaker
                item["text"] = content.canonical_json(body).decode()
                item["hash"] = hashlib.sha256(item["text"].encode()).hexdigest()
        return data

    hostile.rewrite = weaken
    page = _open(browser, device_origin, proxy, survey.public_token)
    block = page.locator(f"[data-protection-for='{cheated.pk}']")
    epsilon = display_epsilon(ldp.build(weaker).epsilon_exact)
    expect(block).to_contain_text(f"ε = {epsilon}")
    plain = survey.questions.get(text=AGE)
    expect(page.locator(f"[data-protection-for='{plain.pk}']")).to_contain_text(
        "Not protected"
    )


def test_a_redirected_report_is_not_followed(
    browser, device_origin, proxy, hostile, survey
):
    hostile.redirect_reports = True
    page = _open(browser, device_origin, proxy, survey.public_token)
    _answer(page)
    page.get_by_role("button", name="Send my answers").click()
    expect(page.locator("#status")).to_contain_text("connection failed")
    assert not Submission.objects.filter(survey=survey).exists()


@pytest.fixture
def open_survey(owner):
    """The four questions of ``make_survey``, then open text (one line, and
    several lines left blank), a choice with "Other, please specify" and an
    optional protected question to decline."""
    survey = make_survey(owner)
    plain = [
        (NOTE, PrivacyConfig(kind="short_text", is_private=False), False),
        (STORY, PrivacyConfig(kind="long_text", is_private=False), True),
        (
            TRAVEL,
            PrivacyConfig(
                kind="single_choice",
                is_private=False,
                options=TRAVELS,
                other_option=True,
            ),
            False,
        ),
    ]
    for text, config, optional in plain:
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=config,
            optional=optional,
            not_private_acknowledged=True,
        )
    authoring.question_create(
        survey=survey,
        text=LATE,
        privacy=PrivacyConfig(kind="yes_no", epsilon=0.5, mechanism="warner"),
        optional=True,
    )
    authoring.question_create(  # pipes TRAVEL, question 7
        survey=survey,
        text=PIPED,
        privacy=PrivacyConfig(kind="yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    return survey


def test_open_text_goes_as_typed_beside_its_warning_pipes_fill_and_skips_go_apart(
    browser, device_origin, proxy, hostile, open_survey
):
    survey = open_survey
    page = _open(browser, device_origin, proxy, survey.public_token)
    expect(page.locator("#device-form")).to_be_visible()
    _wording_beside_every_control(page, survey)
    _answer(page)
    note = page.locator("fieldset.question").filter(has_text=NOTE)
    note.get_by_label("Your answer").fill("  Thanks,   all fine  ")
    # An earlier unprotected answer, piped into a later text, filled as text.
    piped = page.locator("fieldset.question").filter(has_text="was it a good way?")
    expect(piped.locator("legend")).to_contain_text("You came …: was it")
    travel = page.locator("fieldset.question").filter(has_text=TRAVEL)
    travel.get_by_label("By bus", exact=True).check()
    expect(piped.locator("legend")).to_contain_text("You came By bus: was it")
    travel.get_by_label("Other, please specify", exact=True).check()
    travel.get_by_label("Please specify", exact=True).fill("Tandem")
    expect(travel).to_contain_text(TYPED_WARNING)  # beside the "Other" box too
    expect(piped.locator("legend")).to_contain_text("You came Tandem: was it")
    piped.get_by_label("Yes", exact=True).check()
    late = page.locator("fieldset.question").filter(has_text=LATE)
    late.get_by_label("Yes", exact=True).check()
    late.get_by_label("Prefer not to answer").check()
    # STORY (optional, several lines) is left blank.
    review = page.locator("#device-review")
    expect(review).to_contain_text(f"{NOTE}: Thanks, all fine")
    expect(review).to_contain_text(f"{TRAVEL}: Other, please specify: Tandem")
    expect(review).to_contain_text(f"{STORY}: skipped")
    expect(review).not_to_contain_text(LATE)  # protected: never listed as given
    page.get_by_role("button", name="Send my answers").click()
    expect(page.locator("#device-done")).to_be_visible()
    (posted,) = hostile.posts
    body = parse_qs(posted, keep_blank_values=True)
    assert set(body) <= _allowed(survey)
    pk = {q.text: q.pk for q in survey.questions.all()}
    assert body[f"q{pk[NOTE]}"] == ["  Thanks,   all fine  "]  # as typed
    assert body[f"q{pk[STORY]}_skipped"] == ["blank"]
    assert body[f"q{pk[LATE]}_skipped"] == ["declined"]
    assert f"q{pk[LATE]}_report" not in body  # declined: no report at all
    assert body[f"q{pk[TRAVEL]}"] == [str(len(TRAVELS))]
    assert body[f"q{pk[TRAVEL]}_other"] == ["Tandem"]
    assert body[f"q{pk[PIPED]}"] == ["1"]
    (submission,) = Submission.objects.filter(survey=survey)
    reasons = dict(
        SkippedAnswer.objects.filter(submission=submission).values_list(
            "question__text", "reason"
        )
    )
    assert reasons == {STORY: "blank", LATE: "declined"}
    other = PlainAnswer.objects.get(submission=submission, question_id=pk[TRAVEL])
    assert other.other_text == "Tandem"


def _site_total(page) -> str:
    """The ε the device says a send adds (its own figure, before the send)."""
    text = page.locator("#device-site-total").inner_text()
    return re.search(r"Sending adds ε = ([\d.]+)", text).group(1)


def _survey_address(page, device_origin, proxy, token):
    page.goto(
        f"{device_origin}/index.html#{urlencode({'server': proxy, 'survey': token})}"
    )
    return page


def test_the_same_questions_under_a_new_address_ask_in_plain_words_with_the_new_total(
    browser, device_origin, proxy, hostile, survey
):
    hostile.aliases[FAKE_TOKEN] = survey.public_token
    page = _open(browser, device_origin, proxy, survey.public_token)
    added = _site_total(page)
    _answer(page)
    page.get_by_role("button", name="Send my answers").click()
    expect(page.locator("#device-done")).to_be_visible()
    again = _survey_address(page.context.new_page(), device_origin, proxy, FAKE_TOKEN)
    words = again.locator("#device-notice[data-state='seen'] #seen-words")
    total = f"{2 * float(added):.3f}"
    expect(words).to_have_text(
        f"You already answered {len(PROTECTED)} of these questions on this device, "
        "for another survey on this site. Answering them again lets the answers be "
        f"combined to learn more about you: it adds ε = {added}, making ε = {total} "
        "given to this site in the last 12 months."
    )
    expect(
        again.get_by_role("button", name="Answer these questions again")
    ).to_be_visible()
    # A click a script makes is not a yes.
    again.evaluate("document.getElementById('accept-seen').click()")
    expect(again.get_by_role("button", name="Send my answers")).to_be_disabled()
    assert len(hostile.posts) == 1


def test_a_send_from_another_tab_needs_a_yes_before_this_one_randomizes(
    browser, device_origin, proxy, hostile, survey
):
    hostile.aliases[FAKE_TOKEN] = survey.public_token
    first = _open(browser, device_origin, proxy, FAKE_TOKEN)
    second = _survey_address(
        first.context.new_page(), device_origin, proxy, survey.public_token
    )
    # Both drawn before anything was sent: both fresh.
    expect(second.locator("#device-form")).to_be_visible()
    expect(second.locator("#device-notice")).to_be_hidden()
    _answer(first)
    first.get_by_role("button", name="Send my answers").click()
    expect(first.locator("#device-done")).to_be_visible()
    _answer(second)
    second.get_by_role("button", name="Send my answers").click()
    expect(second.locator("#device-notice[data-state='seen']")).to_be_visible()
    assert len(hostile.posts) == 1
    second.locator("#accept-seen").click()
    second.get_by_role("button", name="Send my answers").click()
    expect(second.locator("#device-done")).to_be_visible()
    assert len(hostile.posts) == 2


def _swap_protection_words(data: dict) -> dict:
    """The protection wording inputs of two protected questions swapped, each
    object re-hashed, so the fingerprints hold."""
    items = [(item, json.loads(item["text"])) for item in data["questions"]]
    guarded = [(item, body) for item, body in items if body["protected"]]
    (a, first), (b, second) = guarded[0], guarded[2]
    first["wording"], second["wording"] = second["wording"], first["wording"]
    for item, body in ((a, first), (b, second)):
        item["text"] = content.canonical_json(body).decode()
        item["hash"] = hashlib.sha256(item["text"].encode()).hexdigest()
    return data


def test_swapped_wording_with_fresh_fingerprints_is_worded_from_each_checked_spec(
    browser, device_origin, proxy, hostile, survey
):
    hostile.rewrite = _swap_protection_words
    page = _open(browser, device_origin, proxy, survey.public_token)
    expect(page.locator("#device-form")).to_be_visible()
    _wording_beside_every_control(page, survey)
    smoked = survey.questions.get(text=SMOKED)
    block = page.locator(f"[data-protection-for='{smoked.pk}']")
    epsilon = display_epsilon(ldp.build(smoked.spec).epsilon_exact)
    expect(block).to_contain_text(f"ε = {epsilon}")


def _downgrade(pk: int, spec: dict | None) -> Callable[[dict], dict]:
    """Only question ``pk``, served again with ``spec`` (None: unprotected),
    its words and options as before, its fingerprint recomputed."""

    def rewrite(data: dict) -> dict:
        kept = []
        for item in data["questions"]:
            body = json.loads(item["text"])
            if body["question"] != pk:
                continue
            body["spec"] = spec
            if spec is None:
                body.update(protected=False, spec_revision=None, wording=None)
            item["text"] = content.canonical_json(body).decode()
            item["hash"] = hashlib.sha256(item["text"].encode()).hexdigest()
            kept.append(item)
        data["questions"] = kept
        return data

    return rewrite


@pytest.mark.parametrize("weaker", [False, True], ids=["unprotected", "larger ε"])
def test_a_question_protected_before_and_asked_with_less_sends_nothing_without_a_yes(
    browser, device_origin, proxy, hostile, survey, weaker
):
    cheated = survey.questions.get(text=CHEATED)
    first = _open(browser, device_origin, proxy, survey.public_token)
    _answer(first)  # sent under protection: its words are remembered
    first.get_by_role("button", name="Send my answers").click()
    expect(first.locator("#device-done")).to_be_visible()
    # The same words at a new address, unprotected or with a larger ε.
    spec = ldp.build({"version": 1, "mechanism": "warner", "epsilon": 4.0}).spec
    hostile.rewrite = _downgrade(cheated.pk, spec if weaker else None)
    hostile.aliases[FAKE_TOKEN] = survey.public_token
    page = _survey_address(first.context.new_page(), device_origin, proxy, FAKE_TOKEN)
    warning = page.locator(f"#downgrade-q{cheated.pk}")
    expect(warning).to_contain_text(
        "protected more strongly before"
        if weaker
        else "This question was protected before; this time the server asks it without"
        " protection. Your answer would be sent as you give it."
    )
    block = page.locator("fieldset.question").filter(has_text=CHEATED)
    expect(block.get_by_label("Yes", exact=True)).to_be_disabled()
    page.get_by_role("button", name="Send my answers").click()
    expect(page.locator("#status")).to_contain_text("answer it anyway or leave it out")
    assert len(hostile.posts) == 1  # nothing leaves without the respondent's yes
    # A scripted click is not a yes.
    page.evaluate(f"document.getElementById('accept-downgrade-q{cheated.pk}').click()")
    expect(block.get_by_label("Yes", exact=True)).to_be_disabled()
    warning.get_by_role("button", name="Answer it anyway").click()
    block.get_by_label("Yes", exact=True).check()
    page.get_by_role("button", name="Send my answers").click()
    expect(page.locator("#device-done, #status.error").first).to_be_visible()
    body = parse_qs(hostile.posts[1])
    if weaker:
        assert f"q{cheated.pk}" not in body  # still only a report
        assert f"q{cheated.pk}_report" in body
    else:
        assert body[f"q{cheated.pk}"] == ["1"]  # as given, after the yes
