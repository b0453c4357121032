"""Real Celery workers (the compose command) refresh tallies through real Redis."""

from __future__ import annotations

import os
import signal
import time
import uuid

import pytest

import ldp
from surveys.analysis import tasks
from surveys.analysis.results import selectors
from surveys.analysis.tallies import services
from surveys.celery import app as celery_app
from surveys.collection.models import Report
from tests.conftest import clean_env
from tests.surveys.analysis.conftest import (
    FAMILIES,
    broker,
    direct_stats,
    make_survey,
    submit_bulk,
    submit_one,
    tally_stats,
    untallied,
)
from tests.surveys.compose import service_command
from tests.surveys.stored_reports import payloads

# Short: nothing else holds a task here, and the rerun waits for it to pass.
VISIBILITY_TIMEOUT = 3
# Eight batches of 100, 0.7 s apart: time to kill the worker between two.
KILLED_REFRESH_REPORTS = 800

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_db(own_redis) -> str:
    """An empty Redis of this test's own: no stale task from another test or run."""
    return own_redis.url()


def start_worker(start_process, database_url: str, redis_url: str, **extra: str):
    env = clean_env(
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=redis_url,
        CELERY_RESULT_BACKEND=redis_url,
        **extra,
    )
    return start_process(
        [
            *service_command("worker"),
            "--concurrency",
            "1",
            "--hostname",
            f"tally-{uuid.uuid4().hex[:8]}@%h",
        ],
        env,
        name="worker",
    )


def wait_for(condition, worker, timeout: float = 90, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(
        f"{what} not met in {timeout}s\n--- worker ---\n{worker.output()}"
    )


def last_report_id() -> int:
    return Report.objects.order_by("-id").values_list("id", flat=True).first() or 0


def test_worker_refreshes_after_a_submission_and_results_equal_ldp(
    researcher, start_process, test_database_url, redis_db
):
    survey = make_survey(researcher, [FAMILIES[2], FAMILIES[7], FAMILIES[8]])
    with untallied():
        submit_bulk(survey, 300)  # stored earlier, not yet tallied
    worker = start_worker(start_process, test_database_url, redis_db)

    with broker(redis_db):
        outcome = submit_one(survey, seed=5)  # commits, then enqueues the refresh
    assert outcome.created

    wait_for(
        lambda: selectors.survey_watermark(survey_id=survey.pk) >= last_report_id(),
        worker,
        what="the worker's refresh",
    )
    results = selectors.survey_results(survey=survey)
    assert results.pending_reports == 0
    for result in results.questions:
        question = survey.questions.get(pk=result.question_id)
        mechanism = ldp.build(question.spec)
        stat = mechanism.aggregate(payloads(Report.objects.filter(question=question)))
        assert result.n == stat.n == 301
        expected = mechanism.estimate(stat)
        assert result.estimate == [float(x) for x in expected.estimate]
        mean = expected.mean()
        assert result.mean == (None if mean is None else float(mean.estimate))
    assert "refresh_survey_tallies" in worker.output()


def test_worker_killed_mid_refresh_task_reruns_and_counts_nothing_twice(
    researcher, start_process, test_database_url, redis_db
):
    survey = make_survey(researcher, [FAMILIES[2]], plain=False)
    with untallied():
        submit_bulk(survey, KILLED_REFRESH_REPORTS)
    slow = {
        "DENIABLE_TALLY_BATCH_SIZE": "100",
        "DENIABLE_TALLY_BATCH_DELAY": "0.7",
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
    }
    first = start_worker(start_process, test_database_url, redis_db, **slow)
    with broker(redis_db):
        celery_app.tasks[tasks.refresh_survey_tallies.name].delay(survey.pk)
    end = last_report_id()

    wait_for(
        lambda: selectors.survey_watermark(survey_id=survey.pk) > 0,
        first,
        what="a first committed batch",
    )
    os.killpg(first.pid, signal.SIGKILL)  # the process group this test started
    killed = time.monotonic()  # the task was delivered before this
    first.process.wait(timeout=30)
    killed_at = selectors.survey_watermark(survey_id=survey.pk)
    assert 0 < killed_at < end, "the refresh must be killed part-way"

    # Redis hands an unacknowledged task to a new worker once its visibility
    # timeout has passed; a starting worker restores such tasks at once.
    time.sleep(max(0.0, killed + VISIBILITY_TIMEOUT + 1 - time.monotonic()))
    second = start_worker(start_process, test_database_url, redis_db, **slow)
    wait_for(
        lambda: selectors.survey_watermark(survey_id=survey.pk) >= end,
        second,
        what="the rerun of the refresh",
    )

    assert "refresh_survey_tallies" in second.output()
    incremental = tally_stats(survey)
    assert [stat["n"] for stat in incremental.values()] == [KILLED_REFRESH_REPORTS]
    assert incremental == direct_stats(survey)
    services.tallies_recount(survey_id=survey.pk)
    assert tally_stats(survey) == incremental
