"""The respondent page in headless Chromium: only randomized reports leave it.

A "lying" random source (every secure random word is one fixed value, chosen
so that each mechanism reports something other than the true answer) makes the
check meaningful: if a true answer reached any request, it would show.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from django.urls import reverse

import ldp
from surveys.collection.models import PlainAnswer, Report, Submission
from tests.browser import lying_script
from tests.browser import lying_word as shared_lying_word
from tests.conftest import ROOT
from tests.surveys.collection.conftest import questions
from tests.surveys.stored_reports import payloads

ARTIFACTS = ROOT / "test-artifacts"
# True answers: Yes, Yes, the first income bracket, "Disagree", 12 hours a week
# (grid level 12), two apps; "45 to 64" (unprotected).
TRUE = {
    "forced_response": 1,
    "warner": 1,
    "grr": 0,
    "ordinal": 1,
    "geometric": 12,
    "padding_sampling": [1, 4],
}
HOURS = "12"
PLAIN = 2


def lying_word(survey) -> int:
    """A 32-bit word that makes every private question report a false answer."""
    q = questions(survey)
    return shared_lying_word((ldp.build(q[name].spec), TRUE[name]) for name in TRUE)


def answer(page, survey) -> None:
    q = questions(survey)
    for name, value in TRUE.items():
        group = f'[data-answer-group="q{q[name].pk}_answer"]'
        if name == "geometric":
            page.fill(f"{group} input.numeric-value", HOURS)
            continue
        for one in value if isinstance(value, list) else [value]:
            page.locator(f'{group} input[value="{one}"]').check()
    page.locator(f'input[name="q{q["plain"].pk}"][value="{PLAIN}"]').check()


@pytest.mark.django_db(transaction=True)
def test_browser_sends_only_randomized_reports(live_server, survey, browser):
    word = lying_word(survey)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(lying_script(word))
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

    # The slider moves over the grid with the keyboard and fills in the box.
    numeric = f"#id_q{q['geometric'].pk}_answer"
    page.locator(f"{numeric}_slider").focus()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    assert page.input_value(f"{numeric}_value") == "39"
    assert page.get_attribute(f"{numeric}_slider", "aria-valuetext") == "39"

    # Off the grid or out of range: a message next to the field, nothing sent.
    answer(page, survey)
    for wrong, says in (("12.5", "steps of 1"), ("41", "from 0 to 40")):
        page.fill(f"{numeric}_value", wrong)
        page.click('button[type="submit"]')
        assert says in page.inner_text(f"#error-q{q['geometric'].pk}")
        assert page.get_attribute(f"{numeric}_value", "aria-invalid") == "true"
    assert not [r for r in requests if r[0] == "POST"]
    page.fill(f"{numeric}_value", HOURS)
    assert page.input_value(f"{numeric}_slider") == HOURS

    # At most two apps: a third tick is undone, with a message.
    apps = f'[data-answer-group="q{q["padding_sampling"].pk}_answer"]'
    page.locator(f'{apps} input[value="0"]').click()
    assert not page.locator(f'{apps} input[value="0"]').is_checked()
    assert "at most 2" in page.inner_text(f"#error-q{q['padding_sampling'].pk}")
    assert page.locator(f"{apps} input:checked").count() == 2

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "respondent-form-phone.png"), full_page=True)
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=10_000)
    assert errors == []

    posts = [(u, d) for m, u, d in requests if m == "POST"]
    assert len(posts) == 1
    fields = urllib.parse.parse_qs(posts[0][1], keep_blank_values=True)
    # "opened": the server's signed "page loaded while open" stamp (grace period).
    expected_names = {
        "csrfmiddlewaretoken",
        "idempotency_key",
        "survey_revision",
        "opened",
    }
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
        assert sent != json.dumps(TRUE[name]), f"{name}: the true answer was sent"
    assert HOURS not in {v[0] for n, v in fields.items() if n != "csrfmiddlewaretoken"}
    assert fields[f"q{q['plain'].pk}"] == [str(PLAIN)]
    # Every other request is a GET without a body.
    assert all(d is None for m, _, d in requests if m != "POST")

    # What the server stored is what the Python reference computes from the word.
    stored = dict(payloads(Report.objects.all(), "question_id"))
    for name, value in TRUE.items():
        mechanism = ldp.build(q[name].spec)
        assert stored[q[name].pk] == mechanism.randomize_one(value, lambda: word)
        assert stored[q[name].pk] != value
    assert PlainAnswer.objects.get().value == PLAIN

    kept = page.evaluate(
        "() => [Object.entries(localStorage), sessionStorage.length, document.cookie]"
    )
    # Only the device's note that it answered and its memory of this site,
    # which holds exactly the randomized reports sent: no answer, no receipt.
    stored_here = dict(kept[0])
    memory = json.loads(stored_here.pop("deniable.memory"))
    remembered = sorted(
        entry["report"]
        for content in memory["contents"].values()
        for entry in content["reports"]
    )
    assert remembered == sorted(fields[f"q{q[name].pk}_report"][0] for name in TRUE)
    ((key, note),) = stored_here.items()
    assert key == f"deniable.answered.{survey.public_token}"
    assert set(json.loads(note)) == {"answered", "expires", "spentMilli"}
    assert kept[1] == 0  # the sealed body is gone once acknowledged
    assert [c.split("=")[0].strip() for c in kept[2].split(";") if c] == ["csrftoken"]
    receipt = page.inner_text("main")
    assert receipt.count("This may differ from what you chose") == len(TRUE)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(
        path=str(ARTIFACTS / "respondent-receipt-phone.png"), full_page=True
    )
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
    assert Report.objects.count() == len(TRUE)
    context.close()


# Every ordinal, numeric and multi-select mechanism, answered in the browser.
KIND_ANSWERS = {
    "ordinal": 2,
    "geometric": "2.5",
    "gaussian": "0.5",
    "duchi": "5",
    "piecewise": "3.0",
    "multi_rr": [0, 3, 5],
    "padding_sampling": [1, 2],
}
GRID_LEVEL = {"2.5": 4, "0.5": 0, "5": 9, "3.0": 5}
WORD = 1_234_567_891  # below 2^31, so no mechanism's draw ever rejects it


@pytest.mark.django_db(transaction=True)
def test_every_new_mechanism_matches_the_python_reference(
    live_server, kinds_survey, browser
):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(
        "Crypto.prototype.getRandomValues = function (array) {"
        f" array.fill({WORD}); return array; }};"
    )
    posts: list[str | None] = []
    context.on(
        "request", lambda r: posts.append(r.post_data) if r.method == "POST" else None
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    url = live_server.url + reverse(
        "collection:respond", args=[kinds_survey.public_token]
    )
    page.goto(url)
    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=10_000)
    q = questions(kinds_survey)
    for name, value in KIND_ANSWERS.items():
        group = f'[data-answer-group="q{q[name].pk}_answer"]'
        if isinstance(value, str):
            page.fill(f"{group} input.numeric-value", value)
            continue
        for one in value if isinstance(value, list) else [value]:
            page.locator(f'{group} input[value="{one}"]').check()
    for one in (0, 2):
        page.locator(f'input[name="q{q["plain"].pk}"][value="{one}"]').check()
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=10_000)
    assert errors == []

    assert len(posts) == 1
    fields = urllib.parse.parse_qs(posts[0], keep_blank_values=True)
    assert not [n for n in fields if n.endswith("_answer")]
    stored = dict(payloads(Report.objects.all(), "question_id"))
    for name, value in KIND_ANSWERS.items():
        truth = GRID_LEVEL[value] if isinstance(value, str) else value
        expected = ldp.build(q[name].spec).randomize_one(truth, lambda: WORD)
        assert stored[q[name].pk] == expected, name
        assert json.loads(fields[f"q{q[name].pk}_report"][0]) == expected
    assert PlainAnswer.objects.get().value == [0, 2]
    context.close()
