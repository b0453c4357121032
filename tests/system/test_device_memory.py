"""The device's memory of a site, against a hostile page, in Chromium.

The memory (``static/js/ledger.js``) is keyed by each question's content, not
by the survey id the page supplies: the same questions under another survey
id, or in a copy of the survey, are not randomized again without the
respondent's yes; within one survey the remembered reports go again byte for
byte; the ε the site received in the last 12 months is shown before every
send and a send past the device's ceiling is refused; the protection beside
each control is the one of the content the device reads there, however the
page labels its blocks; a preview posts nothing.

The last tests show what the same-origin device cannot stop (said in
docs/threat-model.md): a ``Clear-Site-Data`` header wipes its memory, a
script the server adds to the page reads it and reads a true answer as it is
chosen, and a cookie the server sets goes back with the answers.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from django.urls import reverse
from playwright.sync_api import Route, expect

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import Submission
from tests.system.conftest import AGE, CHEATED, COLOUR, DESKTOP, PROTECTED, SMOKED
from tests.system.device import (
    answer,
    force_submit,
    form_of,
    ledger_key,
    nothing_visible,
    reports_in,
    rewrite_config,
    watch,
)
from tests.system.hostile_urls import WIPE_PATH

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ONCE = "3.099"  # 1 + 1 + ln 3, rounded up: the survey's protected questions
SEEN = (
    "You already answered 3 of these questions on this device, for another "
    "survey on this site"
)


def memory(page) -> dict | None:
    raw = page.evaluate("() => localStorage.getItem('deniable.memory')")
    return None if raw is None else json.loads(raw)


def respond_url(live_server, survey) -> str:
    return live_server.url + reverse("collection:respond", args=[survey.public_token])


def send(page) -> None:
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")


def send_once(page, live_server, survey) -> None:
    page.goto(respond_url(live_server, survey))
    answer(page)
    send(page)


def on_get(change):
    """A route handler that changes GET responses only (POSTs go through)."""

    def handle(route: Route) -> None:
        if route.request.method != "GET":
            route.continue_()
            return
        change(route)

    return handle


def assert_asks_before_anything(page, traffic, posts: int) -> None:
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text(SEEN)
    expect(notice).to_contain_text(f"adds ε = {ONCE}, making ε = 6.198")
    assert nothing_visible(page)
    force_submit(page)  # no yes yet: nothing leaves
    page.wait_for_timeout(400)
    assert len(traffic.posts) == posts


def test_the_same_questions_under_another_survey_id_need_a_yes(
    live_server, chromium, survey
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)
    url = respond_url(live_server, survey)
    page.route(
        url,
        on_get(lambda route: rewrite_config(route, lambda c: c.update(survey="x1"))),
    )
    page.goto(url)
    assert_asks_before_anything(page, traffic, posts=1)
    page.get_by_role(
        "button",
        name="Answer these questions again and accept the added privacy loss",
    ).click()
    answer(page)
    send(page)
    assert len(traffic.posts) == 2
    remembered = memory(page)
    assert sum(given["milli"] for given in remembered["given"]) == 6198
    scopes = [
        sorted(r["scope"] for r in entry["reports"])
        for entry in remembered["contents"].values()
    ]
    assert scopes == [sorted([survey.public_token, "x1"])] * 3
    context.close()


def test_a_copy_of_the_survey_needs_a_yes_for_the_questions_already_answered(
    live_server, chromium, survey, owner
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)
    copy = authoring.survey_duplicate(survey=survey, user=owner)
    copy = authoring.survey_publish(survey=copy, user=owner)
    page.goto(respond_url(live_server, copy))
    assert_asks_before_anything(page, traffic, posts=1)
    context.close()


def test_a_send_from_another_tab_needs_a_yes_before_this_one_randomizes(
    live_server, chromium, survey, owner
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    copy = authoring.survey_duplicate(survey=survey, user=owner)
    copy = authoring.survey_publish(survey=copy, user=owner)
    first, second = context.new_page(), context.new_page()
    first.goto(respond_url(live_server, survey))
    second.goto(respond_url(live_server, copy))
    # Both drawn before anything was sent: both fresh.
    expect(second.get_by_role("button", name="Send my answers")).to_be_enabled()
    answer(first)
    send(first)
    answer(second)
    second.get_by_role("button", name="Send my answers").click()
    expect(second.locator("#device-notice")).to_contain_text(SEEN)
    assert len(traffic.posts) == 1
    second.get_by_role(
        "button",
        name="Answer these questions again and accept the added privacy loss",
    ).click()
    answer(second)
    send(second)
    assert len(traffic.posts) == 2
    context.close()


DOWNGRADED = (
    "This question was protected before; this time the server asks it without "
    "protection. Your answer would be sent as you give it."
)


def test_a_question_protected_before_and_asked_without_protection_needs_a_yes(
    live_server, chromium, survey, owner
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)  # sent protected: its words remembered
    # The server asks the same words again, in a survey of its own, unprotected.
    again = authoring.survey_create(owner=owner, title="Exams", epsilon_budget=4.0)
    asked = authoring.question_create(
        survey=again,
        text=CHEATED,
        privacy=PrivacyConfig(kind="yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    again = authoring.survey_publish(survey=again, user=owner)
    page.goto(respond_url(live_server, again))
    group = page.get_by_role("group", name=CHEATED)
    expect(group.locator(f"#downgrade-q{asked.pk}")).to_contain_text(DOWNGRADED)
    expect(group.get_by_label("Yes", exact=True)).to_be_disabled()
    force_submit(page)  # no yes: nothing leaves
    expect(page.locator("#respond-status")).to_contain_text("answer it anyway")
    page.wait_for_timeout(400)
    assert len(traffic.posts) == 1
    group.get_by_role("button", name="Answer it anyway").click()
    group.get_by_label("Yes", exact=True).check()
    send(page)
    assert len(traffic.posts) == 2
    assert form_of(traffic.posts[1])[f"q{asked.pk}"] == ["1"]  # as given, after the yes
    context.close()


def test_the_same_survey_sends_its_remembered_reports_again_byte_for_byte(
    live_server, chromium, survey
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = respond_url(live_server, survey)
    failed = []

    def fail_once(route: Route) -> None:
        if route.request.method == "POST" and not failed:
            failed.append(True)
            route.fulfill(status=503, content_type="application/json", body="{}")
            return
        route.continue_()

    page.route(url, fail_once)
    page.goto(url)
    answer(page)
    page.get_by_role("button", name="Send my answers").click()
    page.get_by_role("button", name="Send again").click()  # a retry
    page.wait_for_url("**/s/receipt/**")
    # The survey's own note is gone (expired, or removed by the page); the
    # memory still has this survey's reports: they go again, none is new.
    page.evaluate("(key) => localStorage.removeItem(key)", ledger_key(survey))
    page.goto(url)
    for text in PROTECTED:
        radios = page.get_by_role("group", name=text).get_by_role("radio")
        expect(radios.first).to_be_disabled()
    answer(page, only=(AGE,))
    send(page)
    sent = [reports_in(body, survey) for body in traffic.posts]
    assert len(sent) == 3
    assert sent[0] == sent[1] == sent[2]
    assert sum(given["milli"] for given in memory(page)["given"]) == 3099
    assert Submission.objects.count() == 2
    context.close()


def swap_protection_blocks(route: Route, pks: list[int]) -> None:
    """Each question's protection block labelled as the next question's."""
    text = route.fetch().text()
    for i, pk in enumerate(pks):
        text = text.replace(f'data-protection-for="{pk}"', f"data-swapped-{i}")
    for i, _pk in enumerate(pks):
        text = text.replace(
            f"data-swapped-{i}", f'data-protection-for="{pks[(i + 1) % len(pks)]}"'
        )
    route.fulfill(response=route.fetch(), body=text)


def test_swapped_protection_blocks_still_show_each_controls_own_protection(
    live_server, chromium, survey
):
    pks = [survey.questions.get(text=text).pk for text in PROTECTED]
    epsilon = {CHEATED: "ε = 1.000", COLOUR: "ε = 1.000", SMOKED: "ε = 1.099"}
    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    url = respond_url(live_server, survey)
    page.route(url, on_get(lambda route: swap_protection_blocks(route, pks)))
    page.goto(url)
    for text, pk in zip(PROTECTED, pks, strict=True):
        group = page.get_by_role("group", name=text)
        block = group.locator("[data-protection-for]")
        expect(block).to_have_attribute("data-protection-for", str(pk))
        expect(block.locator("p.device-asks")).to_have_text(
            f"This device protects here: “{text}”"
        )
        expect(block.locator("details")).to_contain_text(epsilon[text])
    smoked = page.get_by_role("group", name=SMOKED).locator("[data-protection-for]")
    expect(smoked).to_contain_text("Your device reports your true answer")
    expect(page.get_by_role("group", name=CHEATED)).not_to_contain_text("1.099")
    context.close()


def change_content_text(config) -> None:
    entry = config["questions"][0]["content"]
    entry["text"] = entry["text"].replace("cheated", "copied")


def change_question_text(config) -> None:
    config["questions"][0]["text"] = "Have you ever copied on an exam?"


@pytest.mark.parametrize("change", [change_content_text, change_question_text])
def test_a_question_that_does_not_match_its_content_object_is_refused(
    live_server, chromium, survey, change
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = respond_url(live_server, survey)
    page.route(url, on_get(lambda route: rewrite_config(route, change)))
    page.goto(url)
    expect(page.locator("#device-notice")).to_contain_text(
        "does not match the content it was made from"
    )
    expect(page.get_by_role("button", name="Send my answers")).to_be_disabled()
    force_submit(page)
    page.wait_for_timeout(400)
    assert traffic.posts == []
    context.close()


def test_the_sites_total_is_shown_before_sending_and_the_ceiling_refuses(
    live_server, chromium, survey
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = respond_url(live_server, survey)
    page.goto(url)
    total = page.locator("#device-site-total")
    expect(total).to_have_text(
        "This site has received privacy loss ε = 0.000 from this device in the "
        f"last 12 months. Sending adds ε = {ONCE}, making ε = {ONCE}. This device "
        "never gives one site more than ε = 20.000 in 12 months."
    )
    today = datetime.now(UTC).date().isoformat()
    near = {"format": 1, "given": [{"day": today, "milli": 17000}], "contents": {}}
    page.evaluate(
        "(m) => localStorage.setItem('deniable.memory', JSON.stringify(m))", near
    )
    page.reload()
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text("to ε = 20.099, beyond the limit of ε = 20.000")
    expect(notice).to_contain_text("already given: ε = 17.000")
    expect(page.get_by_role("button", name="Send my answers")).to_be_disabled()
    force_submit(page)
    page.wait_for_timeout(400)
    assert traffic.posts == []
    # A year later the window has moved on: the same send fits again.
    near["given"][0]["day"] = "2000-01-01"
    page.evaluate(
        "(m) => localStorage.setItem('deniable.memory', JSON.stringify(m))", near
    )
    page.reload()
    expect(total).to_contain_text("has received privacy loss ε = 0.000")
    answer(page)
    send(page)
    assert len(traffic.posts) == 1
    context.close()


def test_a_preview_shows_what_would_be_sent_and_posts_nothing(
    live_server, chromium, survey
):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("x" * 20)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url("**/surveys/")
    posts = len(traffic.posts)  # the sign-in
    page.goto(live_server.url + reverse("collection:preview", args=[survey.pk]))
    answer(page)
    page.get_by_role("button", name="Send my answers").click()
    shown = page.locator("#device-preview")
    expect(shown).to_contain_text("Preview: nothing was stored, because nothing")
    expect(shown.locator("li")).to_have_count(3)
    assert len(traffic.posts) == posts
    assert memory(page) is None
    assert page.evaluate("(k) => localStorage.getItem(k)", ledger_key(survey)) is None
    context.close()


# --- what the same-origin device cannot stop (docs/privacy.md) ----------------------
def test_limit_clear_site_data_wipes_the_memory_so_the_next_visit_randomizes_afresh(
    live_server, chromium, survey, settings
):
    settings.ROOT_URLCONF = "tests.system.hostile_urls"
    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    send_once(page, live_server, survey)
    assert memory(page) is not None
    page.goto(f"{live_server.url}/{WIPE_PATH}")
    page.goto(respond_url(live_server, survey))
    # Nothing remembered: the device offers a fresh randomization, no question.
    assert memory(page) is None
    assert page.evaluate("(k) => localStorage.getItem(k)", ledger_key(survey)) is None
    expect(page.locator("#device-site-total")).to_contain_text("ε = 0.000")
    expect(page.locator("#device-notice")).to_be_hidden()
    answer(page)
    expect(page.get_by_role("button", name="Send my answers")).to_be_enabled()
    context.close()


def added(script: str):
    """A route handler that adds ``script`` to the page and drops its CSP."""

    def add_script(route: Route) -> None:
        response = route.fetch()
        headers = {
            name: value
            for name, value in response.headers.items()
            if name.lower() != "content-security-policy"
        }
        body = re.sub("</head>", script + "</head>", response.text(), count=1)
        route.fulfill(response=response, headers=headers, body=body)

    return add_script


def test_limit_a_script_the_server_adds_reads_the_memory(live_server, chromium, survey):
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    send_once(page, live_server, survey)
    first = reports_in(traffic.posts[0], survey)
    script = (
        "<script>document.documentElement.dataset.stolen = "
        "localStorage.getItem('deniable.memory');</script>"
    )

    page.route(respond_url(live_server, survey), on_get(added(script)))
    page.goto(respond_url(live_server, survey))
    stolen = json.loads(page.evaluate("document.documentElement.dataset.stolen"))
    kept = {r["report"] for e in stolen["contents"].values() for r in e["reports"]}
    assert kept == set(first.values())
    context.close()


def test_limit_a_script_the_server_adds_reads_a_true_answer_as_it_is_chosen(
    live_server, chromium, survey
):
    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    script = (
        "<script>document.addEventListener('change', (event) => {"
        " const label = document.querySelector(`label[for='${event.target.id}']`);"
        " (window.seen ||= []).push(label ? label.textContent.trim() : '');"
        " }, true);</script>"
    )
    page.route(respond_url(live_server, survey), on_get(added(script)))
    page.goto(respond_url(live_server, survey))
    answer(page)
    # "Blue" is the true answer to a protected question: the page read it.
    assert "Blue" in page.evaluate("window.seen")
    context.close()


def test_limit_a_cookie_the_server_sets_goes_back_with_the_answers(
    live_server, chromium, survey
):
    context = chromium.new_context(viewport=DESKTOP)
    cookies: list[str] = []
    context.on(
        "request",
        lambda r: (
            cookies.append(r.headers.get("cookie", "")) if r.method == "POST" else None
        ),
    )
    page = context.new_page()

    def set_cookie(route: Route) -> None:
        response = route.fetch()
        headers = {**response.headers, "set-cookie": "tracker=hostile; Path=/"}
        route.fulfill(response=response, headers=headers)

    page.route(respond_url(live_server, survey), on_get(set_cookie))
    send_once(page, live_server, survey)
    (sent,) = cookies
    assert "tracker=hostile" in sent
