"""Malformed and out-of-domain submissions: a clear 4xx, nothing stored."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveys.collection.models import Invitation, PlainAnswer, Report, Submission
from tests.surveys.collection.conftest import JSON, body, questions

pytestmark = pytest.mark.django_db

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

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

DOMAIN = {"forced_response": 2, "warner": 2, "grr": 4}


def is_possible_output(mechanism: str, value) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and 0 <= value < DOMAIN[mechanism]
    )


def assert_rejected_and_nothing_stored(response) -> None:
    assert 400 <= response.status_code < 500, response.status_code
    if response["Content-Type"].startswith("application/json"):
        assert response.json()["error"].strip()
    assert not Submission.objects.exists()
    assert not Report.objects.exists()
    assert not PlainAnswer.objects.exists()
    assert not Invitation.objects.filter(used_at__isnull=False).exists()


@SETTINGS
@given(
    mechanism=st.sampled_from(sorted(DOMAIN)),
    value=json_values,
)
def test_out_of_domain_reports_are_rejected(client, survey, mechanism, value):
    if is_possible_output(mechanism, value):
        return
    question = questions(survey)[mechanism]
    data = body(survey) | {f"q{question.pk}_report": json.dumps(value)}
    url = reverse("collection:respond", args=[survey.public_token])
    response = client.post(url, data, **JSON)
    assert_rejected_and_nothing_stored(response)
    assert response.status_code == 400
    assert question.text in response.json()["error"]


@SETTINGS
@given(raw=st.text(max_size=40))
def test_reports_that_are_not_json_are_rejected(client, survey, raw):
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return
    question = questions(survey)["warner"]
    data = body(survey) | {f"q{question.pk}_report": raw}
    url = reverse("collection:respond", args=[survey.public_token])
    assert_rejected_and_nothing_stored(client.post(url, data, **JSON))


@SETTINGS
@given(
    fields=st.dictionaries(
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
)
def test_arbitrary_form_bodies_are_rejected(client, survey, fields):
    url = reverse("collection:respond", args=[survey.public_token])
    assert_rejected_and_nothing_stored(client.post(url, fields, **JSON))


@SETTINGS
@given(
    raw=st.binary(max_size=300),
    content_type=st.sampled_from(
        [
            "application/x-www-form-urlencoded",
            "application/json",
            "text/plain",
            "application/octet-stream",
        ]
    ),
)
def test_arbitrary_raw_bodies_are_rejected(client, survey, raw, content_type):
    url = reverse("collection:respond", args=[survey.public_token])
    response = client.post(url, raw, content_type=content_type, **JSON)
    assert_rejected_and_nothing_stored(response)


@SETTINGS
@given(revision=st.integers() | st.text(max_size=5))
def test_wrong_spec_revisions_are_rejected(client, survey, revision):
    try:
        if int(str(revision).strip()) == 1:  # what IntegerField would accept
            return
    except ValueError:
        pass
    question = questions(survey)["grr"]
    data = body(survey) | {f"q{question.pk}_spec_revision": str(revision)}
    url = reverse("collection:respond", args=[survey.public_token])
    assert_rejected_and_nothing_stored(client.post(url, data, **JSON))
