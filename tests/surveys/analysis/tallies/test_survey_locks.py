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
    Tally,
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
            for model, field in (
                (Tally, "question__survey"),
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
