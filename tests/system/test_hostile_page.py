"""A hostile page around the genuine device: no true answer leaves it.

The server here is the real one; the test stands in for a hostile operator by
rewriting the served HTML (Playwright fulfils the survey page with changed
markup or a changed device configuration; the hashed device files stay the
genuine ones).  The attacks: names on the true-answer controls (their own
question's field, an unprotected question's field, a name of the page's own),
hidden inputs, an extra form the true-answer controls are moved into, a
protected question declared unprotected, and ``allow_reanswer`` switched on.

For every attack the proof reads the requests that really left the browser:
each body holds only the fields the server's form expects, each protected
question's field is its randomized report (JSON), each unprotected field holds
the unprotected answer the respondent gave, and everything that went as
given was listed by the device above "Send" before the click.  Answering
again (more ε) needs a real click on the device's own button, after it showed
the added and the total ε.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.urls import reverse
from playwright.sync_api import Page, Route, expect

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection import content
from surveys.collection.forms import ResponseForm
from surveys.collection.models import Submission
from tests.system.conftest import AGE, AGES, CHEATED, DESKTOP
from tests.system.device import changed_config, force_submit, rewrite_config, watch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OFTEN = "How often do you skip breakfast?"
DRINKS = "How many drinks did you have last week?"
TRIED = "Which of these have you tried?"
SCALE = ("Never", "Rarely", "Sometimes", "Often", "Always")
DRUGS = ("Cannabis", "Cocaine", "Ecstasy", "LSD", "None of these")
PROTECTED = (CHEATED, OFTEN, DRINKS, TRIED)


@pytest.fixture
def survey(django_user_model) -> Survey:
    """A protected question of each kind the device reads (yes/no, a scale, a
    typed number, several ticks) and an unprotected one."""
    owner = django_user_model.objects.create_user("ada", password="x" * 20)
    survey = authoring.survey_create(
        owner=owner,
        title="Habits",
        epsilon_budget=6.0,
        researcher_contact="Ada Lovelace, ada@example.org",
    )
    grid = {"low": Decimal("0"), "high": Decimal("60"), "step": Decimal("1")}
    for text, privacy in (
        (CHEATED, PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="warner")),
        (OFTEN, PrivacyConfig(kind="ordinal", options=SCALE, mechanism="ordinal")),
        (DRINKS, PrivacyConfig(kind="numeric", mechanism="geometric", **grid)),
        (
            TRIED,
            PrivacyConfig(kind="multi_select", options=DRUGS, mechanism="multi_rr"),
        ),
    ):
        authoring.question_create(survey=survey, text=text, privacy=privacy)
    authoring.question_create(
        survey=survey,
        text=AGE,
        privacy=PrivacyConfig(kind="single_choice", is_private=False, options=AGES),
        not_private_acknowledged=True,
    )
    return authoring.survey_publish(survey=survey, user=owner)


def ids(survey: Survey) -> dict[str, int]:
    return {q.text: q.pk for q in survey.questions.all()}


def answer_everything(page: Page) -> None:
    """Yes; Often; 37 typed in the box; two ticks; the age group."""
    group = page.get_by_role("group", name=CHEATED)
    group.get_by_label("Yes", exact=True).check()
    page.get_by_role("group", name=OFTEN).get_by_label("Often", exact=True).check()
    box = page.get_by_role("group", name=DRINKS).locator("input.numeric-value")
    box.fill("37")
    tried = page.get_by_role("group", name=TRIED)
    for option in ("Cannabis", "LSD"):
        tried.get_by_label(option, exact=True).check()
    page.get_by_role("group", name=AGE).get_by_label("30 to 59", exact=True).check()


# --- the attacks: each rewrites the served page ---------------------------------
def answer_controls(html: str, pk: int, extra: str) -> str:
    """``extra`` attributes on every true-answer control of question ``pk``."""
    return re.sub(
        rf'<input (type="[^"]+" (?:class="[^"]*" )?id="id_q{pk}_answer[^"]*")',
        rf"<input {extra} \1",
        html,
    )


def rename(scheme: Callable[[int, dict[str, int]], str]):
    def attack(html: str, known: dict[str, int]) -> str:
        for text in PROTECTED:
            pk = known[text]
            html = answer_controls(html, pk, f'name="{scheme(pk, known)}"')
        return html

    return attack


def in_the_answer_form(html: str, markup: str) -> str:
    """``markup`` inside the answer form (before its script note)."""
    return html.replace('<p class="script-note"', markup + '<p class="script-note"', 1)


def after_the_answer_form(html: str, markup: str) -> str:
    end = html.index("</form>", html.index("data-respond")) + len("</form>")
    return html[:end] + markup + html[end:]


def hidden_inputs(html: str, known: dict[str, int]) -> str:
    planted = "".join(
        f'<input type="hidden" name="{name}" value="planted">'
        for pk in (known[text] for text in PROTECTED)
        for name in (f"q{pk}", f"q{pk}_answer", f"stolen_{pk}")
    )
    return in_the_answer_form(html, planted)


def extra_form(html: str, known: dict[str, int]) -> str:
    for text in PROTECTED:
        pk = known[text]
        html = answer_controls(html, pk, f'form="stolen" name="stolen_{pk}"')
    stolen = (
        '<form id="stolen" method="post" target="_blank"><input type="hidden" '
        'name="csrfmiddlewaretoken" value="x"><button type="submit" '
        'id="stolen-send">Send a copy</button></form>'
    )
    return after_the_answer_form(html, stolen)


def downgrade(html: str, known: dict[str, int]) -> str:
    """Declared unprotected: its controls named as an unprotected answer's, and
    out of the protected answer groups."""
    pk = known[CHEATED]
    html = html.replace(f'data-answer-group="q{pk}_answer"', "")
    return answer_controls(html, pk, f'name="q{pk}"')


def downgrade_config(config: dict, known: dict[str, int]) -> None:
    """Declared unprotected, with an unprotected content object of its own
    (re-hashed): on a first visit the device has nothing to compare it with."""
    pk = known[CHEATED]
    (entry,) = [q for q in config["questions"] if q["id"] == pk]
    config["questions"] = [q for q in config["questions"] if q["id"] != pk]
    config["plain"].append(pk)
    body = json.loads(entry["content"]["text"])
    body.update(protected=False, spec=None, spec_revision=None, wording=None)
    text = content.canonical_json(body).decode()
    made = {"hash": content.content_hash(body), "text": text}
    config["plain_content"][str(pk)] = made


ATTACKS = {
    "names of their own questions": (rename(lambda pk, _: f"q{pk}"), None),
    "names of their report fields": (rename(lambda pk, _: f"q{pk}_report"), None),
    "an unprotected question's name": (rename(lambda _, k: f"q{k[AGE]}"), None),
    "names of the page's own": (rename(lambda pk, _: f"stolen_{pk}"), None),
    "hidden inputs": (hidden_inputs, None),
    "an extra form": (extra_form, None),
    "a protected question declared unprotected": (downgrade, downgrade_config),
}
# Questions an attack makes go as given (and so shown before the send).
GOES_AS_GIVEN = {"a protected question declared unprotected": (CHEATED,)}


def serve_hostile(page: Page, url: str, survey: Survey, attack: str) -> None:
    change_html, change_config = ATTACKS[attack]
    known = ids(survey)

    def route(route: Route) -> None:
        if route.request.method != "GET":  # the device's POST goes through
            route.continue_()
            return
        response = route.fetch()
        text = change_html(response.text(), known)
        if change_config is not None:
            text = changed_config(text, lambda config: change_config(config, known))
        route.fulfill(response=response, body=text)

    page.route(url, route)


def respond_url(live_server, survey: Survey) -> str:
    return live_server.url + reverse("collection:respond", args=[survey.public_token])


def attacked_send(live_server, chromium, survey: Survey, attack: str):
    """Answer everything on the attacked page and press Send (and the page's
    own button first, where it made one). What the device listed above Send
    just before the click, and every request that left the browser."""
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = respond_url(live_server, survey)
    serve_hostile(page, url, survey, attack)
    page.goto(url)
    expect(page.locator("#script-note")).to_contain_text("passed its integrity check")
    answer_everything(page)
    if page.locator("#stolen-send").count():
        page.locator("#stolen-send").click()
        page.wait_for_timeout(300)
    review = page.locator("#device-review")
    expect(review).to_be_visible()
    listed = {
        item.get_attribute("data-question"): item.inner_text()
        for item in review.locator("li").all()
    }
    with page.expect_response(is_the_devices_post):
        page.get_by_role("button", name="Send my answers").click()
    context.close()
    return listed, traffic


def is_the_devices_post(response) -> bool:
    request = response.request
    return request.method == "POST" and "idempotency_key" in (request.post_data or "")


def devices_body(traffic) -> str:
    (body,) = [body for body in traffic.posts if "idempotency_key" in body]
    return body


def fields(body: str) -> list[tuple[str, str]]:
    return parse_qsl(body, keep_blank_values=True)


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_no_true_answer_of_a_protected_question_leaves_the_device(
    live_server, chromium, survey, attack
):
    _, traffic = attacked_send(live_server, chromium, survey, attack)
    known = ids(survey)
    expected = ResponseForm(survey=survey).expected_fields()
    age_value = str(AGES.index("30 to 59"))
    still_protected = [t for t in PROTECTED if t not in GOES_AS_GIVEN.get(attack, ())]
    body = devices_body(traffic)
    sent = fields(body)
    names = [name for name, _ in sent]
    # What the server expects, and the answers the attack made go as given
    # (listed before the send: the next test).
    allowed = expected | {f"q{known[t]}" for t in GOES_AS_GIVEN.get(attack, ())}
    assert set(names) <= allowed, set(names) - allowed
    assert len(names) == len(set(names)), names
    for text in still_protected:
        pk = known[text]
        mine = {name for name in names if re.fullmatch(rf"q{pk}(_\w+)?", name)}
        assert mine == {f"q{pk}_report", f"q{pk}_spec_revision"}, (text, mine)
        report = dict(sent)[f"q{pk}_report"]
        assert json.loads(report) is not None and report != "planted"
    assert dict(sent)[f"q{known[AGE]}"] == age_value
    for posted in traffic.posts:
        assert "planted" not in posted and "stolen" not in posted
    # Nor in any other request the page made (a form's query string, say).
    for _, url, _ in traffic.requests:
        query = dict(parse_qsl(urlsplit(url).query))
        assert not any(re.fullmatch(r"(q\d+.*|stolen_\d+)", key) for key in query)
    # Declared unprotected, a protected answer arrives as given: the server
    # refuses it (400) and stores nothing.
    assert Submission.objects.count() == (0 if attack in GOES_AS_GIVEN else 1)


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_every_answer_that_goes_as_given_was_listed_before_the_send(
    live_server, chromium, survey, attack
):
    listed, traffic = attacked_send(live_server, chromium, survey, attack)
    known = ids(survey)
    body = devices_body(traffic)
    as_given = {
        name[1:]
        for name, _ in fields(body)
        if re.fullmatch(r"q\d+", name)  # an unprotected answer, as given
    }
    assert as_given == {str(known[AGE])} | {
        str(known[text]) for text in GOES_AS_GIVEN.get(attack, ())
    }
    assert set(listed) == as_given
    assert "30 to 59" in listed[str(known[AGE])]
    for text in GOES_AS_GIVEN.get(attack, ()):
        assert text in listed[str(known[text])]
        assert "Yes" in listed[str(known[text])]


def send_honestly(page: Page, url: str) -> None:
    page.goto(url)
    answer_everything(page)
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")


def plant_accept(page: Page) -> None:
    """The page's own "accept" button and a pre-ticked box in the notice."""
    page.evaluate(
        """() => {
          const notice = document.getElementById('device-notice');
          notice.insertAdjacentHTML('beforeend',
            '<input type="checkbox" id="accepted" checked>'
            + '<button type="button" id="accept-reanswer">Accept</button>');
        }"""
    )


def scripted_click(page: Page) -> None:
    """A click the page makes itself, not the respondent's."""
    page.evaluate("() => document.getElementById('accept-reanswer').click()")


@pytest.mark.parametrize(
    "tamper",
    [None, plant_accept, scripted_click],
    ids=["config only", "a pre-set accept", "a scripted click"],
)
def test_allow_reanswer_switched_on_shows_the_added_epsilon_and_needs_a_real_click(
    live_server, chromium, survey, tamper
):
    assert not survey.allow_reanswer
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = respond_url(live_server, survey)
    send_honestly(page, url)
    page.route(url, lambda route: reanswer_page(route))
    page.goto(url)
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text("answering again adds ε = ")
    expect(notice).to_contain_text(" in all (")
    if tamper is not None:
        tamper(page)
    force_submit(page)
    page.wait_for_timeout(400)
    assert len(traffic.posts) == 1
    for box in page.locator("fieldset.question input:not([type=hidden])").all():
        assert box.is_disabled()
    # Only the respondent's click on the device's own button opens the form.
    page.get_by_role(
        "button", name="Answer again and accept the added privacy loss"
    ).click()
    answer_everything(page)
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    assert len(traffic.posts) == 2
    context.close()


def switch_reanswer_on(config: dict) -> None:
    config["allow_reanswer"] = True


def reanswer_page(route: Route) -> None:
    """The page with ``allow_reanswer`` switched on; the POST goes through."""
    if route.request.method != "GET":
        route.continue_()
    else:
        rewrite_config(route, switch_reanswer_on)
