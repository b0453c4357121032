"""Optional questions: a skip sends only its marker, and is validated like the rest."""

from __future__ import annotations

import json
import uuid

import pytest
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.answer_fields import SKIP_MARKER
from surveys.collection.forms import ResponseForm
from surveys.collection.models import PlainAnswer, Report, SkippedAnswer, Submission
from surveys.collection.responses import ResponseIn, SentReport, SubmissionRejected
from surveys.collection.services import submission_ingest, submissions_ingest_bulk
from tests.surveys.collection.conftest import JSON, body, valid_reports

pytestmark = pytest.mark.django_db

COLOURS = ("Red", "Green", "Blue")


@pytest.fixture
def optional_survey(researcher) -> Survey:
    """A required protected question, an optional protected one, and an
    optional unprotected one."""
    survey = authoring.survey_create(owner=researcher, title="Optional ones")
    authoring.question_create(
        survey=survey, text="Required?", privacy=PrivacyConfig(kind="yes_no")
    )
    authoring.question_create(
        survey=survey,
        text="Optional and protected?",
        privacy=PrivacyConfig(kind="yes_no"),
        optional=True,
    )
    authoring.question_create(
        survey=survey,
        text="Favourite colour?",
        privacy=PrivacyConfig(kind="single_choice", is_private=False, options=COLOURS),
        not_private_acknowledged=True,
        optional=True,
    )
    return authoring.survey_publish(survey=survey, user=researcher)


def ids(survey: Survey) -> tuple[int, int, int]:
    required, optional, plain = survey.questions.all()
    return required.pk, optional.pk, plain.pk


def response(survey: Survey, **changes) -> ResponseIn:
    required, optional, plain = ids(survey)
    reports = valid_reports(survey)
    fields = {
        "idempotency_key": uuid.uuid4(),
        "survey_revision": survey.revision,
        "reports": {pk: SentReport(1, reports[pk]) for pk in (required, optional)},
        "plain_answers": {plain: 1},
    }
    fields.update(changes)
    return ResponseIn(**fields)


def nothing_stored() -> bool:
    return not (
        Submission.objects.exists()
        or Report.objects.exists()
        or PlainAnswer.objects.exists()
        or SkippedAnswer.objects.exists()
    )


# --- ingestion ---------------------------------------------------------------------
def test_a_skipped_optional_question_stores_only_its_marker(optional_survey):
    required, optional, plain = ids(optional_survey)
    sent = response(optional_survey)
    skipping = response(
        optional_survey,
        reports={required: sent.reports[required]},
        plain_answers={},
        skipped=frozenset({optional, plain}),
    )
    submission_ingest(survey=optional_survey, response=skipping)
    assert set(Report.objects.values_list("question_id", flat=True)) == {required}
    assert not PlainAnswer.objects.exists()
    assert set(SkippedAnswer.objects.values_list("question_id", flat=True)) == {
        optional,
        plain,
    }


def test_a_skip_of_a_required_question_is_refused_and_nothing_stored(optional_survey):
    required, _, _ = ids(optional_survey)
    sent = response(optional_survey)
    reports = {pk: r for pk, r in sent.reports.items() if pk != required}
    with pytest.raises(SubmissionRejected, match="“Required\\?” cannot be skipped"):
        submission_ingest(
            survey=optional_survey,
            response=response(
                optional_survey, reports=reports, skipped=frozenset({required})
            ),
        )
    assert nothing_stored()


def test_a_question_both_skipped_and_reported_is_refused(optional_survey):
    _, optional, _ = ids(optional_survey)
    with pytest.raises(SubmissionRejected, match="both skipped and answered"):
        submission_ingest(
            survey=optional_survey,
            response=response(optional_survey, skipped=frozenset({optional})),
        )
    assert nothing_stored()


def test_a_skip_of_a_question_of_another_survey_is_refused(optional_survey):
    with pytest.raises(SubmissionRejected, match="not questions of this survey"):
        submission_ingest(
            survey=optional_survey,
            response=response(optional_survey, skipped=frozenset({10**9})),
        )
    assert nothing_stored()


def test_an_optional_question_with_neither_report_nor_skip_is_refused(
    optional_survey,
):
    required, _, _ = ids(optional_survey)
    sent = response(optional_survey)
    with pytest.raises(SubmissionRejected, match="no report arrived"):
        submission_ingest(
            survey=optional_survey,
            response=response(
                optional_survey, reports={required: sent.reports[required]}
            ),
        )
    assert nothing_stored()


def test_bulk_ingest_stores_skips_with_their_submissions(optional_survey):
    required, optional, _ = ids(optional_survey)
    sent = response(optional_survey)
    skipping = response(
        optional_survey,
        reports={required: sent.reports[required]},
        skipped=frozenset({optional}),
    )
    assert submissions_ingest_bulk(survey=optional_survey, responses=[skipping]) == 1
    assert SkippedAnswer.objects.get().question_id == optional


# --- the respondent's form -----------------------------------------------------------
def skip_body(survey: Survey) -> dict[str, str]:
    required, optional, plain = ids(survey)
    data = body(survey, reports={required: valid_reports(survey)[required]})
    del data[f"q{plain}"]
    del data[f"q{optional}_spec_revision"]  # as the device sends it: the marker alone
    data[f"q{optional}_skipped"] = SKIP_MARKER
    data[f"q{plain}_skipped"] = SKIP_MARKER
    return data


def test_the_form_offers_prefer_not_to_answer_only_on_optional_questions(
    client, optional_survey
):
    required, optional, plain = ids(optional_survey)
    page = client.get(
        reverse("collection:respond", args=[optional_survey.public_token])
    ).content.decode()
    assert page.count("Prefer not to answer") == 2
    assert f'name="q{optional}_skipped"' in page
    assert f'name="q{plain}_skipped"' in page
    assert f'name="q{required}_skipped"' not in page


def test_the_form_turns_skip_markers_into_skips_with_no_report(optional_survey):
    required, optional, plain = ids(optional_survey)
    form = ResponseForm(skip_body(optional_survey), survey=optional_survey)
    assert form.is_valid(), form.errors
    sent = form.response()
    assert sent.skipped == {optional, plain}
    assert set(sent.reports) == {required}
    assert sent.plain_answers == {}


def test_the_form_refuses_an_optional_question_both_answered_and_skipped(
    optional_survey,
):
    _, optional, _ = ids(optional_survey)
    data = body(optional_survey)
    data[f"q{optional}_skipped"] = SKIP_MARKER
    form = ResponseForm(data, survey=optional_survey)
    assert not form.is_valid()
    assert any("both answered and marked" in p for p in form.problems())


def test_a_skip_marker_on_a_required_question_is_ignored_by_the_form(
    optional_survey,
):
    required, _, _ = ids(optional_survey)
    data = body(optional_survey)
    del data[f"q{required}_report"]
    data[f"q{required}_skipped"] = SKIP_MARKER
    form = ResponseForm(data, survey=optional_survey)
    assert not form.is_valid()
    assert any(
        "No randomized report arrived for “Required?”" in p for p in form.problems()
    )


def test_a_skipping_submission_is_stored_through_the_respond_view(
    client, optional_survey
):
    url = reverse("collection:respond", args=[optional_survey.public_token])
    answer = client.post(url, skip_body(optional_survey), **JSON)
    assert answer.status_code == 201, answer.content
    assert SkippedAnswer.objects.count() == 2
    assert Report.objects.count() == 1


def test_the_device_is_told_which_questions_are_optional(client, optional_survey):
    required, optional, plain = ids(optional_survey)
    page = client.get(
        reverse("collection:respond", args=[optional_survey.public_token])
    ).content.decode()
    start = page.index('<script id="device-config" type="application/json">')
    config = json.loads(page[start:].split(">", 1)[1].split("</script>", 1)[0])
    optional_of = {q["id"]: q["optional"] for q in config["questions"]}
    assert optional_of == {required: False, optional: True}
    assert config["plain_optional"] == [plain]


def test_the_consent_page_says_a_skip_is_visible_to_the_server(client, optional_survey):
    page = client.get(
        reverse("collection:consent", args=[optional_survey.public_token])
    ).content.decode()
    assert "that you skipped it" in page


def test_the_receipt_says_which_questions_were_skipped(client, optional_survey):
    url = reverse("collection:respond", args=[optional_survey.public_token])
    receipt = client.post(url, skip_body(optional_survey), **JSON).json()
    page = client.get(receipt["receipt_url"]).content.decode()
    assert page.count("You skipped this question") == 2
    assert page.count("Your device sent:") == 1
