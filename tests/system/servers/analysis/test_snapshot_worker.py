"""Real Celery workers compute results snapshots; pages read them as stored."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.analysis import tasks
from surveys.analysis.models import ResultSnapshot
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import results_to_document
from surveys.celery import app as celery_app
from tests.surveys.analysis.conftest import (
    FAMILIES,
    broker,
    make_survey,
    submit_bulk,
    submit_one,
)
from tests.system.servers.analysis.test_worker import (
    last_report_id,
    start_worker,
    wait_for,
)

# Short: nothing else holds a task here, and the rerun waits for it to pass.
VISIBILITY_TIMEOUT = 3
# What the worker logs once the snapshot is computed and it waits to store it.
SNAPSHOT_COMPUTED = "Snapshot computed; storing it in 60"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_db(own_redis) -> str:
    """An empty Redis of this test's own: no stale task from another test or run."""
    return own_redis.url()


def snapshot_watermark(survey) -> int:
    snapshot = selectors.latest_snapshot(survey_id=survey.pk)
    return snapshot.watermark if snapshot is not None else -1


def from_scratch(survey) -> dict:
    return results_to_document(selectors.survey_results(survey=survey))


def test_worker_computes_the_snapshot_and_the_dashboard_reads_it_in_constant_queries(
    researcher, client, start_process, test_database_url, redis_db
):
    worker = start_worker(start_process, test_database_url, redis_db)
    client.force_login(researcher)
    counts = []
    for size in (20, 600):
        survey = make_survey(researcher, [FAMILIES[2], FAMILIES[7], FAMILIES[8]])
        with broker(redis_db):
            submit_bulk(survey, size - 1)  # commits, then enqueues the refresh
            submit_one(survey, seed=7)
            wait_for(
                lambda survey=survey: snapshot_watermark(survey) >= last_report_id(),
                worker,
                what="the worker's snapshot",
            )
            url = reverse("analysis:dashboard", args=[survey.pk])
            with CaptureQueriesContext(connection) as queries:
                html = client.get(url).content.decode()
        counts.append(len(queries))
        assert f"from {size:,} responses" in html
        snapshot = ResultSnapshot.objects.get(survey=survey)
        assert snapshot.responses == size
        assert snapshot.document == from_scratch(survey)
    assert counts[0] == counts[1], counts
    assert "compute_survey_snapshot" in worker.output()


def test_worker_killed_mid_snapshot_keeps_serving_the_old_and_the_rerun_stores_new(
    researcher, client, settings, start_process, test_database_url, redis_db
):
    survey = make_survey(researcher, [FAMILIES[2], FAMILIES[8]], plain=False)
    submit_bulk(survey, 100)  # no broker here: tallied and snapshotted in-process
    old = ResultSnapshot.objects.get(survey=survey)
    assert old.responses == 100
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 1000  # in this process only
    submit_bulk(survey, 50, seed=2)  # the tallies move on, the snapshot is held
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 1
    assert selectors.survey_watermark(survey_id=survey.pk) == last_report_id()

    slow = {
        "DENIABLE_SNAPSHOT_DELAY": "60",  # computed, then waits before the swap
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
    }
    first = start_worker(start_process, test_database_url, redis_db, **slow)
    with broker(redis_db):
        celery_app.tasks[tasks.compute_survey_snapshot.name].delay(survey.pk)
    wait_for(
        lambda: SNAPSHOT_COMPUTED in first.output(),
        first,
        what="the worker computing the snapshot",
    )
    # Inside the computation's 60 s pause before its swap.
    os.killpg(first.pid, signal.SIGKILL)  # the process group this test started
    killed = time.monotonic()
    first.process.wait(timeout=30)

    # The old snapshot is still the one stored and served.
    kept = ResultSnapshot.objects.get(survey=survey)
    assert (kept.pk, kept.version, kept.document) == (old.pk, 1, old.document)
    client.force_login(researcher)
    with broker(redis_db):  # a reader's nudge goes to the broker, not in-process
        page = client.get(reverse("analysis:dashboard", args=[survey.pk]))
    html = page.content.decode()
    assert "from 100 responses; 50 newer responses being added" in html

    # Redis hands the unacknowledged task to a new worker after its visibility
    # timeout; the rerun stores the new snapshot.
    time.sleep(max(0.0, killed + VISIBILITY_TIMEOUT + 1 - time.monotonic()))
    second = start_worker(
        start_process,
        test_database_url,
        redis_db,
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
    )
    wait_for(
        lambda: snapshot_watermark(survey) >= last_report_id(),
        second,
        what="the rerun of the snapshot",
    )
    new = ResultSnapshot.objects.get(survey=survey)
    assert new.version == 2 and new.responses == 150
    assert new.document == from_scratch(survey)
