"""The respondent page in headless Chromium: only randomized reports leave it.

A "lying" random source (every secure random word is one fixed value, chosen
so that each mechanism reports something other than the true answer) makes the
check meaningful: if a true answer reached any request, it would show.
"""

from __future__ import annotations

import shutil
import urllib.parse
from pathlib import Path

import pytest
from django.db import connections
from django.urls import reverse

import ldp
from surveys.collection.models import PlainAnswer, Report, Submission
from tests.surveys.collection.conftest import questions

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# True answers: Yes, Yes, the first income bracket; "My workplace" (unprotected).
TRUE = {"forced_response": 1, "warner": 1, "grr": 0}
PLAIN = 2


@pytest.fixture
def browser(monkeypatch):
    # Playwright's sync API keeps an event loop in this thread; the test's own
    # database reads are still plain synchronous calls.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("Chromium is not installed (no `chromium` on PATH)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()
            # Connections opened while Playwright's loop runs live in their own
            # context; close them here or the test database cannot be dropped.
            connections.close_all()


def lying_word(survey) -> int:
    """A 32-bit word that makes every private question report a false answer."""
    mechanisms = {
        name: ldp.build(q.spec) for name, q in questions(survey).items() if q.spec
    }
    for word in range(2**32 - 1, 2**32 - 4097, -1):
        outputs = {}
        for name, mechanism in mechanisms.items():
            calls = iter(range(16))

            def draw(word: int = word, calls=calls) -> int:
                if next(calls, None) is None:
                    raise RuntimeError("word rejected")
                return word

            try:
                outputs[name] = mechanism.randomize_one(TRUE[name], draw)
            except RuntimeError:
                break
        else:
            if all(outputs[n] != TRUE[n] for n in outputs):
                return word
    raise AssertionError("no single word makes every mechanism lie")


def answer(page, survey) -> None:
    q = questions(survey)
    for name, value in TRUE.items():
        page.locator(
            f'[data-answer-group="q{q[name].pk}_answer"] input[value="{value}"]'
        ).check()
    page.locator(f'input[name="q{q["plain"].pk}"][value="{PLAIN}"]').check()


@pytest.mark.django_db(transaction=True)
def test_browser_sends_only_randomized_reports(live_server, survey, browser):
    word = lying_word(survey)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(
        "Crypto.prototype.getRandomValues = function (array) {"
        f" array.fill({word}); return array; }};"
    )
    requests: list[tuple[str, str, str | None]] = []
    context.on("request", lambda r: requests.append((r.method, r.url, r.post_data)))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    url = live_server.url + reverse("collection:respond", args=[survey.public_token])
    page.goto(url)
    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=10_000)
    assert "passed its integrity check" in page.inner_text("#script-note")

    # Keyboard: arrows move within an unnamed radio group, like a native one.
    q = questions(survey)
    first = page.locator(f"#id_q{q['grr'].pk}_answer_0")
    first.focus()
    page.keyboard.press("ArrowDown")
    assert page.locator(f"#id_q{q['grr'].pk}_answer_1").is_checked()
    assert not first.is_checked()

    answer(page, survey)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "respondent-form-phone.png"), full_page=True)
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=10_000)
    assert errors == []

    posts = [(u, d) for m, u, d in requests if m == "POST"]
    assert len(posts) == 1
    fields = urllib.parse.parse_qs(posts[0][1], keep_blank_values=True)
    expected_names = {"csrfmiddlewaretoken", "idempotency_key", "survey_revision"}
    for name, question in q.items():
        if name == "plain":
            expected_names.add(f"q{question.pk}")
        else:
            expected_names |= {
                f"q{question.pk}_report",
                f"q{question.pk}_spec_revision",
            }
    assert set(fields) == expected_names  # no field for a true answer
    for name in TRUE:
        sent = fields[f"q{q[name].pk}_report"][0]
        assert sent != str(TRUE[name]), f"{name}: the true answer was sent"
    assert fields[f"q{q['plain'].pk}"] == [str(PLAIN)]
    # Every other request is a GET without a body.
    assert all(d is None for m, _, d in requests if m != "POST")

    # What the server stored is what the Python reference computes from the word.
    stored = {r.question_id: r.payload for r in Report.objects.all()}
    for name, value in TRUE.items():
        mechanism = ldp.build(q[name].spec)
        assert stored[q[name].pk] == mechanism.randomize_one(value, lambda: word)
        assert stored[q[name].pk] != value
    assert PlainAnswer.objects.get().value == PLAIN

    kept = page.evaluate(
        "() => [localStorage.length, sessionStorage.length, document.cookie]"
    )
    assert kept[:2] == [0, 0]
    assert [c.split("=")[0].strip() for c in kept[2].split(";") if c] == ["csrftoken"]
    assert "This may differ from what you chose" in page.inner_text("main")
    context.close()


@pytest.mark.django_db(transaction=True)
def test_retry_after_network_error_resends_the_identical_body(
    live_server, survey, browser
):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    url = live_server.url + reverse("collection:respond", args=[survey.public_token])
    bodies: list[str | None] = []

    def flaky(route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        bodies.append(route.request.post_data)
        if len(bodies) == 1:
            route.abort("failed")  # the first send never reaches the server
        else:
            route.continue_()

    page.route(url, flaky)
    page.goto(url)
    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=10_000)
    answer(page, survey)
    page.screenshot(path=str(ARTIFACTS / "respondent-form.png"), full_page=True)
    page.click('button[type="submit"]')
    page.wait_for_selector("#respond-status.error", timeout=10_000)
    assert "connection failed" in page.inner_text("#respond-status")
    assert not Submission.objects.exists()
    # The answers are sealed: they cannot be changed and re-randomized.
    assert page.locator(".question input[type=radio]").first.is_disabled()
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=10_000)

    assert len(bodies) == 2
    assert bodies[0] == bodies[1]
    assert Submission.objects.count() == 1
    assert Report.objects.count() == 3
    context.close()
