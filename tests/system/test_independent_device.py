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
from surveys.collection import content
from surveys.collection.models import Submission
from tests.axe_gate import AxeGate, GatedBrowser, gate_actions
from tests.browser import headless_chromium, lying_script, lying_word
from tests.system.conftest import AGE, ANSWERS, DESKTOP, PHONE, PROTECTED

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Chromium's own switch for blocking third-party cookies (as browsers phase
# them out); the device needs none.
BLOCK_THIRD_PARTY_COOKIES = "--test-third-party-cookie-phaseout"
HOP_BY_HOP = {"connection", "transfer-encoding", "content-length", "keep-alive"}
FAKE_TOKEN = "a-new-survey-address"


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
    expect(page.locator("#status")).to_contain_text("does not match its fingerprint")
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
