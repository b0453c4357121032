"""Collection announces committed reports with a signal; it never calls analysis."""

from __future__ import annotations

import uuid

import pytest

from surveys.authoring.models import Survey
from surveys.collection import services
from surveys.collection.models import Submission
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.signals import reports_committed
from tests.surveys.collection.conftest import body as form_body
from tests.surveys.collection.conftest import questions, valid_reports

pytestmark = pytest.mark.django_db


def response(survey: Survey) -> ResponseIn:
    return ResponseIn(
        idempotency_key=uuid.uuid4(),
        survey_revision=survey.revision,
        reports={
            pk: SentReport(spec_revision=1, payload=payload)
            for pk, payload in valid_reports(survey).items()
        },
        plain_answers={questions(survey)["plain"].pk: 2},
    )


@pytest.fixture
def heard():
    """Every reports_committed sent while the test runs: (sender, survey_id)."""
    calls: list[tuple[type, int]] = []

    def listen(sender, *, survey_id, **kwargs):
        calls.append((sender, survey_id))

    reports_committed.connect(listen, dispatch_uid="test-listener")
    yield calls
    reports_committed.disconnect(dispatch_uid="test-listener")


def test_reports_committed_is_sent_only_after_the_commit(
    survey, heard, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.submission_ingest(survey=survey, response=response(survey))
    assert heard == []
    for callback in callbacks:
        callback()
    assert heard == [(Submission, survey.pk)]


def test_a_failing_receiver_never_fails_the_stored_submission(
    survey, django_capture_on_commit_callbacks, caplog
):
    def broken(sender, **kwargs):
        raise RuntimeError("receiver is broken")

    reports_committed.connect(broken, dispatch_uid="test-broken")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            outcome = services.submission_ingest(
                survey=survey, response=response(survey)
            )
    finally:
        reports_committed.disconnect(dispatch_uid="test-broken")
    assert outcome.created
    assert Submission.objects.filter(pk=outcome.submission.pk).exists()
    assert "receiver is broken" in caplog.text


def test_a_repeated_submission_announces_nothing(
    survey, django_capture_on_commit_callbacks
):
    sent = response(survey)
    services.submission_ingest(survey=survey, response=sent)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        outcome = services.submission_ingest(survey=survey, response=sent)
    assert not outcome.created
    assert callbacks == []


# --- after the response -----------------------------------------------------------
CSRF_SECRET = "a" * 32  # an unmasked token, as a cookie and as the form's field


def wsgi_post(survey: Survey, data: dict[str, str]):
    """POST ``data`` to the survey's answer page through Django's WSGI handler,
    as a WSGI server does; the status and the unread, unclosed body."""
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory
    from django.urls import reverse

    request = RequestFactory().post(
        reverse("collection:respond", args=[survey.public_token]),
        {**data, "csrfmiddlewaretoken": CSRF_SECRET},
        HTTP_ACCEPT="application/json",
        HTTP_COOKIE=f"csrftoken={CSRF_SECRET}",
    )
    statuses: list[str] = []
    body = WSGIHandler()(
        request.environ, lambda status, headers: statuses.append(status)
    )
    return statuses, body


@pytest.mark.django_db(transaction=True)
def test_a_posted_answer_announces_its_reports_after_its_response_is_sent(
    survey, heard
):
    statuses, body = wsgi_post(survey, form_body(survey))
    sent = b"".join(body)  # the whole response, as the server writes it
    assert statuses[0].startswith("201")
    assert b"receipt_url" in sent
    assert Submission.objects.filter(survey=survey).count() == 1
    assert heard == []  # stored and answered; the refresh not yet asked for
    body.close()  # what the server does once the response is sent
    assert heard == [(Submission, survey.pk)]


def test_outside_a_request_reports_are_announced_at_the_commit(
    survey, heard, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.submission_ingest(survey=survey, response=response(survey))
    assert heard == [(Submission, survey.pk)]
