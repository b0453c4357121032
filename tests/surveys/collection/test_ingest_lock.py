"""A re-publish racing a submission: the survey row is locked and re-checked.

Reports are validated against the survey as the request read it; inside the
storing transaction the survey row is locked and its status, revision and
question spec revisions are compared again, so a report randomized under an
old spec can never be stored after a concurrent re-publish.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.models import Question, Survey
from surveys.collection import answer_checks, services
from surveys.collection.models import PlainAnswer, Report, Submission
from surveys.collection.responses import ResponseIn, SentReport, SubmissionRejected
from tests.surveys.collection.conftest import JSON, body, questions, valid_reports


def response(survey: Survey) -> ResponseIn:
    return ResponseIn(
        idempotency_key=uuid.uuid4(),
        survey_revision=survey.revision,
        reports={
            pk: SentReport(spec_revision=1, payload=payload)
            for pk, payload in valid_reports(survey).items()
        },
        plain_answers={questions(survey)["plain"].pk: 1},
    )


def nothing_stored() -> bool:
    return not (
        Submission.objects.exists()
        or Report.objects.exists()
        or PlainAnswer.objects.exists()
    )


def after_validation(monkeypatch, action) -> None:
    """Run ``action`` once the reports were validated, before they are stored."""
    original = answer_checks.AnswerChecker.check

    def check(self, sent):
        result = original(self, sent)
        action()
        return result

    monkeypatch.setattr(answer_checks.AnswerChecker, "check", check)


@pytest.mark.django_db
def test_the_survey_row_is_locked_before_anything_is_stored(survey):
    with CaptureQueriesContext(connection) as captured:
        services.submission_ingest(survey=survey, response=response(survey))
    sql = [q["sql"] for q in captured.captured_queries]
    lock = next(
        i
        for i, s in enumerate(sql)
        if "FOR UPDATE" in s and 'FROM "authoring_survey"' in s
    )
    # The submission and its rows are stored by one statement (a WITH of inserts).
    first_insert = next(i for i, s in enumerate(sql) if "INSERT INTO" in s)
    assert lock < first_insert


@pytest.mark.django_db
def test_a_republish_after_validation_is_refused_and_nothing_stored(
    monkeypatch, survey, researcher
):
    after_validation(
        monkeypatch,
        lambda: authoring.survey_publish(survey=survey, user=researcher),
    )
    with pytest.raises(SubmissionRejected, match="was changed") as caught:
        services.submission_ingest(survey=survey, response=response(survey))
    assert (caught.value.status, caught.value.code) == (409, "stale")
    assert Survey.objects.get().revision == survey.revision + 1
    assert nothing_stored()


@pytest.mark.django_db
def test_a_new_spec_revision_alone_is_caught(monkeypatch, survey):
    q = questions(survey)["ordinal"]
    after_validation(
        monkeypatch,
        lambda: Question.objects.filter(pk=q.pk).update(spec_revision=2),
    )
    with pytest.raises(SubmissionRejected) as caught:
        services.submission_ingest(survey=survey, response=response(survey))
    assert caught.value.code == "stale"
    assert nothing_stored()


@pytest.mark.django_db
def test_a_close_after_validation_is_refused(monkeypatch, survey):
    after_validation(
        monkeypatch,
        lambda: Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED),
    )
    with pytest.raises(SubmissionRejected) as caught:
        services.submission_ingest(survey=survey, response=response(survey))
    assert (caught.value.status, caught.value.code) == (410, "closed")
    assert nothing_stored()


@pytest.mark.django_db
def test_bulk_ingest_re_checks_under_the_lock(monkeypatch, survey, researcher):
    after_validation(
        monkeypatch,
        lambda: authoring.survey_publish(survey=survey, user=researcher),
    )
    with pytest.raises(SubmissionRejected, match="was changed"):
        services.submissions_ingest_bulk(
            survey=survey, responses=[response(survey), response(survey)]
        )
    assert nothing_stored()


@pytest.mark.slow  # a race between real transactions on other threads
@pytest.mark.django_db(transaction=True)
def test_a_submission_waiting_on_a_republish_is_refused_once_it_commits(
    survey, researcher
):
    """A real race: the submission blocks on the lock the re-publish holds."""
    url = reverse("collection:respond", args=[survey.public_token])
    data = body(survey)
    assert Client().get(url).status_code == 200  # the respondent's page
    started = threading.Event()

    def submit() -> tuple[int, dict]:
        try:
            started.set()
            reply = Client().post(url, data, **JSON)
            return reply.status_code, reply.json()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        with transaction.atomic():
            Survey.objects.select_for_update().get(pk=survey.pk)
            future = pool.submit(submit)
            started.wait(timeout=10)
            time.sleep(1.0)  # long enough to validate and reach the lock
            assert not future.done(), future.result()
            authoring.survey_publish(survey=survey, user=researcher)
        status, payload = future.result(timeout=30)

    assert (status, payload["code"]) == (409, "stale")
    assert "changed" in payload["error"]
    assert not Submission.objects.exists() and not Report.objects.exists()
    # The same answers, sent again, are now refused as a stale page too.
    fresh = Client().post(url, data, **JSON)
    assert fresh.status_code == 409
