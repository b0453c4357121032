"""A hostile server rewrites the spec the page carries; the device refuses it.

The server here is the real one; the test stands in for a hostile operator by
rewriting the device config in the served HTML (the page's code and its hashes
stay genuine, only the data differ).  For every rewrite the proof is the same:
no request carrying a report leaves the browser, nothing is stored, the Send
button stays disabled and the page explains the refusal in plain words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

import ldp
from surveys.collection.content import canonical_json, content_hash
from surveys.collection.models import Submission
from tests.system.conftest import CHEATED, COLOUR, DESKTOP, PHONE, SMOKED
from tests.system.device import (
    answer,
    force_submit,
    question_index,
    rewrite_config,
    watch,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VECTORS = json.loads(
    (Path(ldp.__file__).parent / "spec" / "vectors.json").read_text("utf-8")
)
HOSTILE = {item["name"]: item["spec"] for item in VECTORS["device_checks"]}


def warner(epsilon: float) -> dict:
    return ldp.build({"version": 1, "mechanism": "warner", "epsilon": epsilon}).spec


# name: (question rewritten -> spec, expected plain-words reason)
CASES = {
    "degenerate weights (keep 2^32-1, flip 1)": (
        {CHEATED: HOSTILE["warner degenerate: keep 2^32-1, flip 1"]},
        "promise more protection than they would really give",
    ),
    "degenerate weights with no declared ε": (
        {
            CHEATED: {
                **{
                    k: v
                    for k, v in HOSTILE[
                        "warner degenerate: keep 2^32-1, flip 1"
                    ].items()
                    if k != "epsilon"
                }
            }
        },
        "incomplete or malformed",
    ),
    "ε above the question ceiling": (
        {CHEATED: warner(6.0)},
        "would protect your answer too weakly",
    ),
    "weights whose ε disagrees with the displayed figure": (
        {COLOUR: HOSTILE["grr weights of eps=2 declared as eps=1"]},
        "promise more protection than they would really give",
    ),
    "unknown mechanism": (
        {CHEATED: HOSTILE["unknown mechanism"]},
        "a method it does not know",
    ),
    "whole survey above the survey ceiling": (
        {CHEATED: warner(4.0), COLOUR: warner(4.0), SMOKED: warner(4.0)},
        "would reveal too much about you",
    ),
}


def hostile(changes: dict):
    """Rewrite each question's spec, and its content object to match (with
    a recomputed hash): the server writes both, so the device's own checks
    of the spec are what must refuse it."""

    def change(config: dict) -> None:
        for text, spec in changes.items():
            entry = config["questions"][question_index(config, text)]
            entry["spec"] = spec
            body = json.loads(entry["content"]["text"])
            body["spec"] = spec
            if body.get("wording"):
                body["wording"]["epsilon"] = spec.get("epsilon")
            entry["content"] = {
                "hash": content_hash(body),
                "text": canonical_json(body).decode("utf-8"),
            }

    return change


@pytest.mark.parametrize("case", list(CASES))
def test_device_refuses_a_rewritten_spec_and_sends_nothing(
    live_server, chromium, survey, case
):
    changes, reason = CASES[case]
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    url = live_server.url + reverse("collection:respond", args=[survey.public_token])
    page.route(url, lambda route: rewrite_config(route, hostile(changes)))
    page.goto(url)

    notice = page.locator("#device-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Your device refused to take part")
    expect(notice).to_contain_text("nothing was sent")
    expect(notice).to_contain_text(reason)
    expect(notice).to_contain_text(
        "You may want to tell the researcher: Ada Lovelace, ada@example.org."
    )
    send = page.get_by_role("button", name="Send my answers")
    expect(send).to_be_disabled()
    # Whatever the respondent tries, nothing leaves the device.
    for box in page.locator("fieldset.question input:not([type=hidden])").all():
        assert box.is_disabled()
    force_submit(page)
    page.wait_for_timeout(500)
    assert traffic.posts == []
    assert traffic.carrying_reports == []
    assert not Submission.objects.exists()
    assert errors == []
    context.close()


@pytest.mark.parametrize("case", list(CASES))
def test_consent_page_refuses_the_same_rewrite_before_anyone_takes_part(
    live_server, chromium, survey, case
):
    changes, reason = CASES[case]
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = live_server.url + reverse("collection:consent", args=[survey.public_token])
    page.route(url, lambda route: rewrite_config(route, hostile(changes)))
    page.goto(url)
    expect(page.locator("#device-notice")).to_contain_text(reason)
    expect(page.get_by_role("link", name="Take part")).to_have_count(0)
    assert traffic.posts == []
    context.close()


def test_refusal_screenshots(live_server, chromium, survey, artifacts):
    changes, _ = CASES["degenerate weights (keep 2^32-1, flip 1)"]
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = chromium.new_context(viewport=viewport)
        page = context.new_page()
        for name, view in (
            ("respond", "collection:respond"),
            ("consent", "collection:consent"),
        ):
            url = live_server.url + reverse(view, args=[survey.public_token])
            page.route(url, lambda route: rewrite_config(route, hostile(changes)))
            page.goto(url)
            expect(page.locator("#device-notice")).to_be_visible()
            path = artifacts / f"after-refusal-{name}-{size}.png"
            page.screenshot(path=str(path), full_page=True)
            assert path.stat().st_size > 0
        context.close()


def test_an_honest_page_is_not_refused(live_server, chromium, survey):
    """The control: the same survey, unmodified, can be answered and sent."""
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    page.goto(
        live_server.url + reverse("collection:respond", args=[survey.public_token])
    )
    expect(page.locator("#device-notice")).to_be_hidden()
    answer(page)
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    assert len(traffic.posts) == 1
    assert Submission.objects.count() == 1
    context.close()
