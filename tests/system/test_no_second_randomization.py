"""Every report that leaves the device counts; none is re-randomized silently.

Back after sending, reload after sending, a back-forward cache restore, a 409
for a changed survey and a second visit, in Chromium against the real server.
In each case: no answer is visible in the DOM, no second randomization leaves
the device unless the respondent accepted the added ε, and the device's note
(its ledger) and the figures it shows agree.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

import ldp
from ldp.exact import display_epsilon
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import Submission
from tests.system.conftest import (
    AGE,
    ANSWERS,
    COLOUR,
    COLOURS,
    DESKTOP,
    PHONE,
    PROTECTED,
    make_survey,
)
from tests.system.device import (
    answer,
    force_submit,
    ledger,
    nothing_visible,
    pending,
    reports_in,
    watch,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def milli(survey, texts=PROTECTED) -> int:
    """⌈1000 ε⌉ of the survey's protected questions named in ``texts``."""
    total = sum(
        ldp.build(q.spec).epsilon_exact
        for q in survey.questions.all()
        if q.text in texts
    )
    return int(display_epsilon(total).replace(".", ""))


def epsilon_text(value: int) -> str:
    return f"{value // 1000}.{value % 1000:03d}"


def respond_url(live_server, survey) -> str:
    return live_server.url + reverse("collection:respond", args=[survey.public_token])


def consent_url(live_server, survey) -> str:
    return live_server.url + reverse("collection:consent", args=[survey.public_token])


def wait_for_restore(page) -> None:
    """Until the page's pageshow has run (the page's CSP forbids eval)."""
    for _ in range(100):
        if page.evaluate("() => window.restored") is not None:
            return
        page.wait_for_timeout(50)
    raise AssertionError("no pageshow after going back")


def send_once(page, live_server, survey) -> None:
    page.goto(respond_url(live_server, survey))
    answer(page)
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")


def assert_refuses_quietly(page, traffic, posts_before: int) -> None:
    """Already answered: nothing shown, nothing new can leave the device."""
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text("You have already answered this survey")
    assert nothing_visible(page), page.evaluate("document.body.innerHTML")
    expect(page.get_by_role("button", name="Send my answers")).to_be_disabled()
    expect(page.locator("#script-note")).to_have_text("")  # no "will be randomized"
    force_submit(page)
    page.wait_for_timeout(400)
    assert len(traffic.posts) == posts_before


def test_back_after_send_shows_no_answer_and_sends_nothing_again(
    live_server, chromium, survey, artifacts
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)
    note = ledger(page, survey)
    assert note["spentMilli"] == milli(survey) == 3099
    assert pending(page, survey) is None  # acknowledged: the sealed body is gone
    page.go_back(wait_until="commit")
    assert_refuses_quietly(page, traffic, posts_before=1)
    page.screenshot(path=str(artifacts / "after-already-answered-desktop.png"))
    assert Submission.objects.count() == 1
    assert ledger(page, survey) == note
    context.close()


def test_reload_after_send_shows_no_answer_and_sends_nothing_again(
    live_server, chromium, survey
):
    context = chromium.new_context(viewport=PHONE)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)
    page.goto(respond_url(live_server, survey))
    page.reload()
    assert_refuses_quietly(page, traffic, posts_before=1)
    assert Submission.objects.count() == 1
    context.close()


def test_back_forward_cache_restore_shows_no_answer(live_server, chromium, survey):
    context = chromium.new_context(viewport=DESKTOP)
    context.add_init_script(
        "addEventListener('pageshow', (e) => { window.restored = e.persisted; });"
    )
    traffic = watch(context)
    page = context.new_page()
    page.goto(respond_url(live_server, survey))
    answer(page)
    assert not nothing_visible(page)
    page.get_by_role("link", name="Check the code").click()
    page.wait_for_url("**/s/verify/")
    page.go_back(wait_until="commit")
    wait_for_restore(page)
    assert page.evaluate("window.restored") is True  # restored, not reloaded
    assert nothing_visible(page)
    assert traffic.posts == []

    # After sending, Back restores the form from the cache: still nothing.
    page.evaluate("() => { window.restored = undefined; }")
    answer(page)
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    page.go_back(wait_until="commit")
    # (Chromium may reload rather than restore a no-store page whose request
    # changed its cookies; either way the form must show nothing.)
    wait_for_restore(page)
    assert_refuses_quietly(page, traffic, posts_before=1)
    context.close()


def test_second_visit_is_refused_by_default_and_the_consent_page_agrees(
    live_server, chromium, survey, artifacts
):
    context = chromium.new_context(viewport=PHONE)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)
    spent = ledger(page, survey)["spentMilli"]
    page.goto(consent_url(live_server, survey))
    expect(page.locator("#device-notice")).to_contain_text("already answered")
    expect(page.get_by_role("link", name="Take part")).to_have_count(0)
    total = page.locator('[data-device-text="total-epsilon"]')
    expect(total).to_contain_text(f"ε = {epsilon_text(spent)}")
    page.screenshot(
        path=str(artifacts / "after-already-answered-consent-phone.png"),
        full_page=True,
    )
    page.goto(respond_url(live_server, survey))
    assert_refuses_quietly(page, traffic, posts_before=1)
    page.screenshot(
        path=str(artifacts / "after-already-answered-phone.png"), full_page=True
    )
    context.close()


def test_second_visit_where_allowed_asks_first_and_counts_the_added_epsilon(
    live_server, chromium, owner
):
    survey = make_survey(owner, allow_reanswer=True)
    once = milli(survey)
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)
    assert ledger(page, survey)["spentMilli"] == once

    # The consent page's figures include what this device already sent.
    page.goto(consent_url(live_server, survey))
    expect(page.locator('[data-device-text="total-epsilon"]')).to_contain_text(
        f"ε = {epsilon_text(2 * once)} "
    )
    expect(page.locator('[data-device-text="total-epsilon"]')).to_contain_text(
        f"including ε = {epsilon_text(once)} already sent"
    )

    page.goto(respond_url(live_server, survey))
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text(f"adds ε = {epsilon_text(once)}")
    expect(notice).to_contain_text(f"making ε = {epsilon_text(2 * once)} in all")
    assert nothing_visible(page)
    # Not accepted: nothing can be sent.
    force_submit(page)
    page.wait_for_timeout(400)
    assert len(traffic.posts) == 1
    page.get_by_role(
        "button", name="Answer again and accept the added privacy loss"
    ).click()
    answer(page)
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    assert len(traffic.posts) == 2
    assert ledger(page, survey)["spentMilli"] == 2 * once
    assert Submission.objects.count() == 2

    # A third answer would pass the survey ceiling (3 × 3.099 ≤ 10 still
    # fits; a fourth does not): the device counts every send.
    for _ in range(1):
        page.goto(respond_url(live_server, survey))
        page.get_by_role(
            "button", name="Answer again and accept the added privacy loss"
        ).click()
        answer(page)
        page.get_by_role("button", name="Send my answers").click()
        page.wait_for_url("**/s/receipt/**")
    assert ledger(page, survey)["spentMilli"] == 3 * once
    page.goto(respond_url(live_server, survey))
    expect(page.locator("#device-notice")).to_contain_text("would reveal too much")
    expect(page.get_by_role("button", name="Send my answers")).to_be_disabled()
    force_submit(page)
    page.wait_for_timeout(400)
    assert len(traffic.posts) == 3
    context.close()


def test_a_409_resends_unchanged_reports_byte_for_byte_and_asks_before_the_rest(
    live_server, chromium, survey
):
    # Someone has answered, so changing a question's ε makes a new revision.
    first = chromium.new_context(viewport=DESKTOP)
    send_once(first.new_page(), live_server, survey)
    first.close()

    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    page.goto(respond_url(live_server, survey))
    answer(page)
    colour = survey.questions.get(text=COLOUR)
    authoring.question_update(
        question=colour,
        text=COLOUR,
        privacy=PrivacyConfig(
            kind="single_choice", options=COLOURS, epsilon=1.5, mechanism="grr"
        ),
    )
    page.get_by_role("button", name="Send my answers").click()
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text("The researcher changed this survey")
    assert len(traffic.posts) == 1
    assert Submission.objects.count() == 1
    assert nothing_visible(page)
    spent = ledger(page, survey)["spentMilli"]
    assert spent == 3099  # the reports sent with the 409 count: 1 + 1 + ln 3

    page.get_by_role("button", name="Review the changes").click()
    page.wait_for_load_state()
    survey.refresh_from_db()
    added = milli(survey, texts=(COLOUR,))
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text("changed 1 question after")
    expect(notice).to_contain_text(f"adds ε = {epsilon_text(added)}")
    expect(notice).to_contain_text(f"making ε = {epsilon_text(spent + added)} in all")
    assert added == 1500
    # Unchanged questions are not answerable again; their reports are kept.
    for text in PROTECTED:
        inputs = page.get_by_role("group", name=text).get_by_role("radio")
        for i in range(inputs.count()):
            expect(inputs.nth(i)).to_be_disabled()
    force_submit(page)  # not accepted yet: nothing leaves
    page.wait_for_timeout(400)
    assert len(traffic.posts) == 1

    page.get_by_role("button", name="Answer the changed questions").click()
    # A larger ε for the same words is weaker protection: held until its own yes.
    colour_block = page.get_by_role("group", name=COLOUR)
    expect(colour_block).to_contain_text("protected more strongly before")
    force_submit(page)
    page.wait_for_timeout(400)
    assert len(traffic.posts) == 1
    colour_block.get_by_role("button", name="Answer it anyway").click()
    answer(page, only=(COLOUR, AGE))
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    assert len(traffic.posts) == 2
    before, after = (reports_in(body, survey) for body in traffic.posts)
    for text in PROTECTED:
        if text != COLOUR:
            assert after[text] == before[text], text  # byte for byte
    assert ledger(page, survey)["spentMilli"] == spent + added
    assert Submission.objects.count() == 2
    assert dict(ANSWERS)[AGE] == "30 to 59"
    assert re.fullmatch(r"\d{4}-\d{2}", ledger(page, survey)["expires"])
    context.close()


def test_a_server_answering_409_forever_gets_the_same_reports_every_time(
    live_server, chromium, survey
):
    """A hostile server claims "the survey changed" without changing anything."""
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = respond_url(live_server, survey)

    def always_stale(route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        route.fulfill(
            status=409,
            content_type="application/json",
            body=json.dumps({"error": "The survey changed.", "code": "stale"}),
        )

    page.route(url, always_stale)
    page.goto(url)
    answer(page)
    page.get_by_role("button", name="Send my answers").click()
    for _ in range(3):
        page.get_by_role("button", name="Review the changes").click()
        page.wait_for_load_state()
        expect(page.locator("#device-notice")).to_contain_text("exactly the same bytes")
        assert nothing_visible(page)
        page.get_by_role("button", name="Send again").click()
        expect(page.get_by_role("button", name="Review the changes")).to_be_visible()
    assert len(traffic.posts) == 4
    sent = [reports_in(body, survey) for body in traffic.posts]
    assert all(reports == sent[0] for reports in sent)
    assert ledger(page, survey)["spentMilli"] == milli(survey)
    context.close()
