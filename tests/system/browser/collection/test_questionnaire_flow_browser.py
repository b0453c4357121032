"""Open text, "Other, please specify", shuffled options and a full quota in
Chromium: typed words go as typed, a full quota turns the respondent away
before anything is randomized or sent."""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs

import pytest
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import PlainAnswer, Submission
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COLOURS = ("Red", "Green", "Blue", "Cyan")
TYPED_WARNING = "a sentence can identify the person who wrote it"


@pytest.fixture
def flow_survey(researcher):
    survey = authoring.survey_create(
        owner=researcher, title="Flow", completion_code="DONE42"
    )
    colour = authoring.question_create(
        survey=survey,
        text="Colour?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=COLOURS, other_option=True
        ),
        not_private_acknowledged=True,
        shuffle_options=True,
        quotas={"0": 1},
    )
    authoring.question_create(
        survey=survey,
        text="Your town?",
        privacy=PrivacyConfig(kind="short_text", is_private=False),
        not_private_acknowledged=True,
    )
    cheated = authoring.question_create(
        survey=survey, text="Cheated?", privacy=PrivacyConfig(kind="yes_no")
    )
    survey = authoring.survey_publish(survey=survey, user=researcher)
    cheated.refresh_from_db()
    submissions_ingest_bulk(  # one "Red" fills Red's quota
        survey=survey,
        responses=[
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports={cheated.pk: SentReport(cheated.spec_revision, 1)},
                plain_answers={
                    colour.pk: 0,
                    survey.questions.get(text="Your town?").pk: "Nice",
                },
            )
        ],
    )
    return survey, colour, cheated


def _open(browser, live_server, survey):
    context = browser.new_context()
    requests: list[tuple[str, str]] = []
    context.on("request", lambda r: requests.append((r.method, r.url)))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(
        live_server.url + reverse("collection:respond", args=[survey.public_token])
    )
    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=15_000)
    return page, requests, errors


def test_typed_words_go_as_typed_beside_their_warning_other_last_and_no_order_sent(
    live_server, flow_survey, browser
):
    survey, colour, cheated = flow_survey
    page, _, errors = _open(browser, live_server, survey)
    bodies: list[str] = []
    page.on("request", lambda r: r.method == "POST" and bodies.append(r.post_data))
    values = page.eval_on_selector_all(
        f'#question-{colour.pk} input[name="q{colour.pk}"]',
        "els => els.map(e => e.value)",
    )
    assert sorted(values) == ["0", "1", "2", "3", "4"] and values[-1] == "4"
    # Beside the text box and the words beside "Other": no method randomizes words.
    town = survey.questions.get(text="Your town?")
    for holder in (
        f"[data-protection-for='{town.pk}']",
        f"[data-other-box='{colour.pk}']",
    ):
        assert TYPED_WARNING in page.inner_text(holder)
    page.locator(f'input[name="q{colour.pk}"][value="4"]').check()
    page.fill(f'input[name="q{colour.pk}_other"]', "Teal")
    page.fill(f'input[name="q{town.pk}"]', "Lyon")
    page.locator(f'[data-answer-group="q{cheated.pk}_answer"] input[value="1"]').check()
    page.locator("#device-review").click()  # leave the text box: the review updates
    review = page.inner_text("#device-review")
    assert "Teal" in review and "Lyon" in review
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=15_000)
    assert errors == []
    # The order drawn is never sent: the body names answers and the page only.
    town_id, sent = town.pk, parse_qs(bodies[0], keep_blank_values=True)
    assert set(sent) == {
        "csrfmiddlewaretoken",
        "idempotency_key",
        "survey_revision",
        "opened",
        *(f"q{colour.pk}", f"q{colour.pk}_other", f"q{town_id}"),
        *(f"q{cheated.pk}_report", f"q{cheated.pk}_spec_revision"),
    }
    stored = PlainAnswer.objects.exclude(
        submission__in=Submission.objects.order_by("id")[:1]
    )
    assert {(a.value, a.other_text) for a in stored} == {(4, "Teal"), ("Lyon", "")}


def test_a_full_quota_turns_the_respondent_away_before_anything_is_randomized(
    live_server, flow_survey, browser
):
    survey, colour, cheated = flow_survey
    page, requests, errors = _open(browser, live_server, survey)
    page.locator(f'input[name="q{colour.pk}"][value="0"]').check()
    town = survey.questions.get(text="Your town?")
    page.fill(f'input[name="q{town.pk}"]', "Lyon")
    page.locator(f'[data-answer-group="q{cheated.pk}_answer"] input[value="1"]').check()
    page.click('button[type="submit"]')
    page.wait_for_selector("#quota-closed", timeout=10_000)
    closed = page.inner_text("#quota-closed")
    assert "nothing was sent" in closed and "DONE42" in closed
    assert not [r for r in requests if r[0] == "POST"]
    assert Submission.objects.count() == 1
    # The true answers are cleared from the page; the form is not shown again.
    assert not page.locator(
        f'[data-answer-group="q{cheated.pk}_answer"] input[value="1"]'
    ).is_checked()
    assert page.locator("form[data-respond]").is_hidden()
    assert errors == []
