"""Locks are per survey: one survey's refresh never waits for another's."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction
from django.test.utils import override_settings

from surveys.analysis.models import (
    JointTally,
    PatternTally,
    ResultSnapshot,
    TallyWatermark,
)
from surveys.analysis.tallies import services, snapshots
from surveys.authoring.models import Survey
from tests.surveys.analysis.conftest import (
    FAMILIES,
    make_survey,
    submit_bulk,
    untallied,
)


def _hold_a_batch(survey: Survey, started: threading.Event, finish: threading.Event):
    """Another worker in the middle of a batch and a snapshot swap of
    ``survey``: every lock they take, held until ``finish``."""
    try:
        with transaction.atomic():
            TallyWatermark.objects.select_for_update().get(survey=survey)
            services.locked_tallies(survey.pk)
            for model, field in (
                (JointTally, "survey"),
                (PatternTally, "survey"),
                (ResultSnapshot, "survey"),
            ):
                list(
                    model.objects.select_for_update()
                    .filter(**{field: survey})
                    .order_by()
                )
            Survey.objects.select_for_update(no_key=True).get(pk=survey.pk)
            started.set()
            finish.wait(timeout=60)
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
@override_settings(SNAPSHOT_MIN_NEW_SUBMISSIONS=1)
def test_a_survey_refreshes_and_snapshots_while_another_surveys_worker_holds_its_locks(
    researcher,
):
    held = make_survey(researcher, FAMILIES[:3])
    free = make_survey(researcher, FAMILIES[:3])
    with untallied():
        submit_bulk(held, 6)
        submit_bulk(free, 6)
    services.tallies_refresh(survey_id=held.pk)
    snapshots.snapshot_refresh(survey_id=held.pk, force=True)
    started, finish = threading.Event(), threading.Event()
    worker = threading.Thread(target=_hold_a_batch, args=(held, started, finish))
    worker.start()
    try:
        assert started.wait(timeout=30)
        with connection.cursor() as cursor:
            # A wait for the other survey's locks would fail, not hang.
            cursor.execute("SET lock_timeout = '3s'")
        refreshed = services.tallies_refresh(survey_id=free.pk, lock_timeout_ms=500)
        snapshot = snapshots.snapshot_refresh(survey_id=free.pk)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND pid = "
                "pg_backend_pid()"
            )
            (waiting,) = cursor.fetchone()
    finally:
        finish.set()
        worker.join(timeout=60)

    assert not refreshed.deferred and refreshed.folded == 6 * 3
    assert snapshot.advanced and snapshot.watermark == refreshed.watermark
    assert waiting == 0
    assert JointTally.objects.filter(survey=free).exists()


def _hold_tallies(survey: Survey, started: threading.Event, finish: threading.Event):
    """A worker in the middle of a batch of ``survey``: its tally rows locked
    as the refresh locks them, held until ``finish``."""
    try:
        with transaction.atomic():
            TallyWatermark.objects.select_for_update().get(survey=survey)
            assert services.locked_tallies(survey.pk)
            started.set()
            finish.wait(timeout=60)
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_a_submission_is_stored_while_a_refresh_of_its_survey_holds_the_tallies(
    researcher,
):
    # The refresh once locked the questions with their tallies: a submission
    # (holding the survey row) then waited on a question, while the batch
    # waited on the survey row for its cell rows: a deadlock, and a 503.
    survey = make_survey(researcher, FAMILIES[:3])
    with untallied():
        submit_bulk(survey, 2)
    services.tallies_refresh(survey_id=survey.pk)
    started, finish = threading.Event(), threading.Event()
    worker = threading.Thread(target=_hold_tallies, args=(survey, started, finish))
    worker.start()
    try:
        assert started.wait(timeout=30)
        with connection.cursor() as cursor:
            # A wait for the batch's locks would fail, not hang.
            cursor.execute("SET lock_timeout = '3s'")
        with untallied():
            stored = submit_bulk(survey, 1, seed=2)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")
    finally:
        finish.set()
        worker.join(timeout=60)

    assert stored == 1
