"""Malformed and out-of-domain submissions: a clear 4xx, nothing stored.

docs/testing.md, section 4: 10,000 malformed or out-of-domain reports → 100%
rejected, 0 stored, 0 server errors.

Three layers run the real validation, with these minimum counts of rejected
examples (TARGETS, ≥ 10,000 in all):

- "validate": the respondent view's form (``ResponseForm`` on a QueryDict, as
  ``request.POST``) and then the ingestion service's checks (the same
  ``AnswerChecker`` that ``submission_ingest`` runs before storing) — most examples,
  as this layer needs no database round trip per example;
- "ingest": ``services.submission_ingest`` itself, the last line of defence;
- "http": POSTs through the whole stack (middleware, view, JSON errors), a
  representative subset, and every raw-body example (parsing is HTTP's job).

Every example must be rejected with a 4xx and a message; any other exception is
a server error and fails the test.  Rate limits are off here.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Callable

import pytest
from django.http import QueryDict
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from surveys.authoring.models import Survey
from surveys.collection import answer_checks, responses, services
from surveys.collection.forms import ResponseForm
from surveys.collection.models import Invitation, PlainAnswer, Report, Submission
from tests.surveys.collection.conftest import JSON, body, questions

# 10,000 generated reports and more: a long test, outside the fast lane.
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# Minimum rejected examples per test; hypothesis runs a few more (valid ones
# that a strategy happens to draw are skipped, not counted).
TARGETS = {
    "out_of_domain_validate": 3500,
    "out_of_domain_ingest": 500,
    "out_of_domain_http": 300,
    "not_json_validate": 2000,
    "not_json_http": 150,
    "form_bodies_validate": 2000,
    "form_bodies_http": 150,
    "raw_bodies_http": 400,
    "spec_revisions_validate": 1200,
    "spec_revisions_http": 100,
}


def examples(key: str) -> hypothesis_settings:
    return hypothesis_settings(
        max_examples=TARGETS[key] + TARGETS[key] // 20 + 5,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.fixture(autouse=True)
def _no_rate_limits(settings) -> None:
    settings.RATE_LIMITS_ENABLED = False


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=20,
)
form_fields = st.dictionaries(
    st.sampled_from(
        [
            "idempotency_key",
            "survey_revision",
            "q1_report",
            "q2_spec_revision",
            "q4",
            "q1_answer",
        ]
    )
    | st.text(max_size=12),
    st.text(max_size=40),
    max_size=8,
)
revisions = st.integers() | st.text(max_size=5)

DOMAIN = {"forced_response": 2, "warner": 2, "grr": 4}


def is_possible_output(mechanism: str, value) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 0 <= value < DOMAIN[mechanism]
    )


def is_valid_json_bit(raw: str) -> bool:
    try:
        value = json.loads(raw)
    except ValueError:
        return False
    return isinstance(value, int) and not isinstance(value, bool) and value in (0, 1)


def is_valid_revision(revision) -> bool:
    try:
        return int(str(revision).strip()) == 1  # what IntegerField would accept
    except ValueError:
        return False


def assert_nothing_stored() -> None:
    assert not Submission.objects.exists()
    assert not Report.objects.exists()
    assert not PlainAnswer.objects.exists()
    assert not Invitation.objects.filter(used=True).exists()


def assert_rejected_and_nothing_stored(response) -> None:
    assert 400 <= response.status_code < 500, response.status_code
    if response["Content-Type"].startswith("application/json"):
        assert response.json()["error"].strip()
    assert_nothing_stored()


class Validator:
    """The view's form, then the ingestion service's checks, with no storing."""

    def __init__(self, survey: Survey) -> None:
        self.survey = Survey.objects.prefetch_related("questions").get(pk=survey.pk)
        self.checker = answer_checks.AnswerChecker(self.survey)

    def rejection(self, data: dict[str, str]) -> str:
        """The message a rejected body gets; fails the test if it is accepted."""
        posted = QueryDict(mutable=True)
        posted.update(data)
        form = ResponseForm(posted, survey=self.survey)
        if not form.is_valid():
            message = " ".join(form.problems())
            assert message.strip()
            return message
        try:
            self.checker.check(form.response())
        except responses.SubmissionRejected as error:
            assert 400 <= error.status < 500
            assert error.message.strip()
            return error.message
        raise AssertionError(f"accepted: {data!r}")


def run(key: str, strategy, check: Callable) -> None:
    """Run ``check`` on hypothesis examples; it returns True when it rejected."""
    rejected: list[bool] = []

    @examples(key)
    @given(strategy)
    def each(example) -> None:
        if check(example):
            rejected.append(True)

    each()
    assert len(rejected) >= TARGETS[key], (key, len(rejected))


def test_targets_add_up_to_ten_thousand_malformed_reports():
    assert sum(TARGETS.values()) >= 10_000


# --- out-of-domain reports ------------------------------------------------------
mechanism_and_value = st.tuples(st.sampled_from(sorted(DOMAIN)), json_values)


def test_out_of_domain_reports_are_rejected_by_validation(survey):
    base = body(survey)  # built once: it costs queries
    validator = Validator(survey)
    by_mechanism = questions(survey)

    def check(example) -> bool:
        mechanism, value = example
        if is_possible_output(mechanism, value):
            return False
        question = by_mechanism[mechanism]
        data = base | {f"q{question.pk}_report": json.dumps(value)}
        assert question.text in validator.rejection(data)
        return True

    run("out_of_domain_validate", mechanism_and_value, check)
    assert_nothing_stored()


def test_out_of_domain_reports_are_rejected_by_the_ingest_service(survey):
    by_mechanism = questions(survey)
    valid = Validator(survey)
    posted = QueryDict(mutable=True)
    posted.update(body(survey))
    form = ResponseForm(posted, survey=valid.survey)
    assert form.is_valid()
    template = form.response()

    def check(example) -> bool:
        mechanism, value = example
        if is_possible_output(mechanism, value):
            return False
        question = by_mechanism[mechanism]
        reports = dict(template.reports)
        reports[question.pk] = responses.SentReport(question.spec_revision, value)
        response = dataclasses.replace(
            template, idempotency_key=uuid.uuid4(), reports=reports
        )
        with pytest.raises(responses.SubmissionRejected) as error:
            services.submission_ingest(survey=survey, response=response)
        assert error.value.status == 400
        assert question.text in error.value.message
        assert not Submission.objects.exists()
        return True

    run("out_of_domain_ingest", mechanism_and_value, check)
    assert_nothing_stored()


def test_out_of_domain_reports_are_rejected_over_http(client, survey):
    base = body(survey)  # built once: it costs queries
    by_mechanism = questions(survey)
    url = reverse("collection:respond", args=[survey.public_token])

    def check(example) -> bool:
        mechanism, value = example
        if is_possible_output(mechanism, value):
            return False
        question = by_mechanism[mechanism]
        data = base | {f"q{question.pk}_report": json.dumps(value)}
        response = client.post(url, data, **JSON)
        assert_rejected_and_nothing_stored(response)
        assert response.status_code == 400
        assert question.text in response.json()["error"]
        return True

    run("out_of_domain_http", mechanism_and_value, check)


# --- reports that are not JSON --------------------------------------------------
raw_reports = st.text(max_size=40)


def test_reports_that_are_not_json_are_rejected_by_validation(survey):
    base = body(survey)  # built once: it costs queries
    validator = Validator(survey)
    question = questions(survey)["warner"]

    def check(raw: str) -> bool:
        if is_valid_json_bit(raw):
            return False
        validator.rejection(base | {f"q{question.pk}_report": raw})
        return True

    run("not_json_validate", raw_reports, check)
    assert_nothing_stored()


def test_reports_that_are_not_json_are_rejected_over_http(client, survey):
    base = body(survey)  # built once: it costs queries
    question = questions(survey)["warner"]
    url = reverse("collection:respond", args=[survey.public_token])

    def check(raw: str) -> bool:
        if is_valid_json_bit(raw):
            return False
        data = base | {f"q{question.pk}_report": raw}
        assert_rejected_and_nothing_stored(client.post(url, data, **JSON))
        return True

    run("not_json_http", raw_reports, check)


# --- arbitrary bodies -----------------------------------------------------------
def test_arbitrary_form_bodies_are_rejected_by_validation(survey):
    validator = Validator(survey)

    def check(fields: dict[str, str]) -> bool:
        validator.rejection(fields)
        return True

    run("form_bodies_validate", form_fields, check)
    assert_nothing_stored()


def test_arbitrary_form_bodies_are_rejected_over_http(client, survey):
    url = reverse("collection:respond", args=[survey.public_token])

    def check(fields: dict[str, str]) -> bool:
        assert_rejected_and_nothing_stored(client.post(url, fields, **JSON))
        return True

    run("form_bodies_http", form_fields, check)


raw_bodies = st.tuples(
    st.binary(max_size=300),
    st.sampled_from(
        [
            "application/x-www-form-urlencoded",
            "application/json",
            "text/plain",
            "application/octet-stream",
        ]
    ),
)


def test_arbitrary_raw_bodies_are_rejected_over_http(client, survey):
    url = reverse("collection:respond", args=[survey.public_token])

    def check(example) -> bool:
        raw, content_type = example
        response = client.post(url, raw, content_type=content_type, **JSON)
        assert_rejected_and_nothing_stored(response)
        return True

    run("raw_bodies_http", raw_bodies, check)


# --- wrong spec revisions -------------------------------------------------------
def test_wrong_spec_revisions_are_rejected_by_validation(survey):
    base = body(survey)  # built once: it costs queries
    validator = Validator(survey)
    question = questions(survey)["grr"]

    def check(revision) -> bool:
        if is_valid_revision(revision):
            return False
        data = base | {f"q{question.pk}_spec_revision": str(revision)}
        validator.rejection(data)
        return True

    run("spec_revisions_validate", revisions, check)
    assert_nothing_stored()


def test_wrong_spec_revisions_are_rejected_over_http(client, survey):
    base = body(survey)  # built once: it costs queries
    question = questions(survey)["grr"]
    url = reverse("collection:respond", args=[survey.public_token])

    def check(revision) -> bool:
        if is_valid_revision(revision):
            return False
        data = base | {f"q{question.pk}_spec_revision": str(revision)}
        assert_rejected_and_nothing_stored(client.post(url, data, **JSON))
        return True

    run("spec_revisions_http", revisions, check)
