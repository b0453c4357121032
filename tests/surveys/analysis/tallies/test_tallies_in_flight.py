"""Reports committed out of id order: real concurrent transactions on other
threads, and the horizon fence that keeps the incremental tallies exact.

Apart from test_tallies.py, whose tests share a survey kept in a transaction
for the module, which these tests (``transaction=True``) must not run inside.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections, transaction

from surveys.analysis.results import selectors
from surveys.analysis.tallies import services
from surveys.authoring.models import Survey
from surveys.collection import report_codec
from surveys.collection.models import Report, Submission
from tests.surveys.analysis.conftest import (
    FAMILIES,
    direct_stats,
    make_survey,
    responses,
    submit_bulk,
    tally_stats,
    untallied,
)


def watermark(survey) -> int:
    return selectors.survey_watermark(survey_id=survey.pk)


def _ns(survey) -> dict:
    return {key: stat["n"] for key, stat in tally_stats(survey).items()}


# --- reports committed out of id order (real concurrent transactions) -----------
def _insert_uncommitted(survey, started: threading.Event, finish: threading.Event):
    """In another connection: store a whole response, wait, then commit.

    As ingestion does, the survey's row is locked before the reports are
    inserted and until the commit (``report_store``: the fence relies on it).
    """
    (response,) = responses(survey, 1, seed=99)
    specs = dict(survey.questions.values_list("pk", "spec"))
    try:
        with transaction.atomic():
            Survey.objects.select_for_update().get(pk=survey.pk)
            submission = Submission.objects.create(
                survey=survey,
                idempotency_key=response.idempotency_key,
                survey_revision=survey.revision,
            )
            Report.objects.bulk_create(
                Report(
                    submission=submission,
                    survey=survey,
                    question_id=pk,
                    spec_revision=sent.spec_revision,
                    **report_codec.encode(specs[pk], sent.payload).fields(),
                )
                for pk, sent in response.reports.items()
            )
            started.set()
            finish.wait(timeout=30)
    finally:
        connections.close_all()


@pytest.mark.slow  # a race between real transactions on other threads
@pytest.mark.django_db(transaction=True)
def test_a_report_in_flight_defers_the_refresh_and_is_counted_later(researcher):
    survey = make_survey(researcher, FAMILIES[:3], plain=False)
    with untallied():
        submit_bulk(survey, 2)
    started, finish = threading.Event(), threading.Event()
    slow = threading.Thread(target=_insert_uncommitted, args=(survey, started, finish))
    slow.start()
    try:
        assert started.wait(timeout=30)
        # Folding up to the largest visible id would skip the slow reports
        # if a later one committed first; the fence waits for them instead.
        deferred = services.tallies_refresh(survey_id=survey.pk, lock_timeout_ms=200)
        assert deferred.deferred
        assert deferred.folded == 0
        assert watermark(survey) == 0
    finally:
        finish.set()
        slow.join(timeout=30)

    services.tallies_refresh(survey_id=survey.pk)

    assert set(_ns(survey).values()) == {3}
    assert tally_stats(survey) == direct_stats(survey)


@pytest.mark.slow  # a race between real transactions on other threads
@pytest.mark.django_db(transaction=True)
def test_a_submission_in_flight_to_one_survey_never_holds_up_another_surveys_refresh(
    researcher,
):
    held = make_survey(researcher, FAMILIES[:3], plain=False)
    free = make_survey(researcher, FAMILIES[:2], plain=False)
    with untallied():
        submit_bulk(free, 4)
    started, finish = threading.Event(), threading.Event()
    slow = threading.Thread(target=_insert_uncommitted, args=(held, started, finish))
    slow.start()
    try:
        assert started.wait(timeout=30)
        outcome = services.tallies_refresh(survey_id=free.pk, lock_timeout_ms=200)
    finally:
        finish.set()
        slow.join(timeout=30)

    assert not outcome.deferred
    assert outcome.folded == 4 * 2
    assert tally_stats(free) == direct_stats(free)


def _refresh_in_worker(survey_id: int, barrier: threading.Barrier, done: dict) -> None:
    """A worker of its own (thread and connection): one refresh, timed."""
    try:
        barrier.wait(timeout=30)
        done[survey_id] = services.tallies_refresh(
            survey_id=survey_id, batch_size=5, lock_timeout_ms=200
        )
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_refreshes_of_two_surveys_run_together_while_each_has_a_submission_in_flight(
    researcher,
):
    """Two workers refresh two surveys at once, while a third connection holds
    a batch of one survey's tallies open: neither refresh waits for it."""
    first = make_survey(researcher, FAMILIES[:3], plain=False)
    second = make_survey(researcher, FAMILIES[:2], plain=False)
    third = make_survey(researcher, FAMILIES[:2], plain=False)
    with untallied():
        submit_bulk(first, 12)
        submit_bulk(second, 9)
    started, finish = threading.Event(), threading.Event()
    slow = threading.Thread(target=_insert_uncommitted, args=(third, started, finish))
    slow.start()
    barrier = threading.Barrier(2)
    done: dict = {}
    workers = [
        threading.Thread(target=_refresh_in_worker, args=(s.pk, barrier, done))
        for s in (first, second)
    ]
    try:
        assert started.wait(timeout=30)
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=60)
    finally:
        finish.set()
        slow.join(timeout=30)

    assert [done[s.pk].deferred for s in (first, second)] == [False, False]
    assert [done[s.pk].folded for s in (first, second)] == [12 * 3, 9 * 2]
    assert tally_stats(first) == direct_stats(first)
    assert tally_stats(second) == direct_stats(second)


@pytest.mark.django_db(transaction=True)
def test_refresh_waits_for_a_submission_in_flight_and_includes_it(researcher):
    survey = make_survey(researcher, FAMILIES[:3], plain=False)
    with untallied():
        submit_bulk(survey, 2)
    started, finish = threading.Event(), threading.Event()
    slow = threading.Thread(target=_insert_uncommitted, args=(survey, started, finish))
    slow.start()
    assert started.wait(timeout=30)
    threading.Timer(0.5, finish.set).start()

    outcome = services.tallies_refresh(survey_id=survey.pk, lock_timeout_ms=10_000)
    slow.join(timeout=30)

    assert not outcome.deferred
    assert outcome.folded == 3 * 3
    assert tally_stats(survey) == direct_stats(survey)


def _refresh_in_thread(survey_id: int, barrier: threading.Barrier) -> None:
    try:
        barrier.wait(timeout=30)
        services.tallies_refresh(survey_id=survey_id, batch_size=7)
    finally:
        connections.close_all()


@pytest.mark.slow  # a race between real transactions on other threads
@pytest.mark.django_db(transaction=True)
def test_concurrent_refreshes_count_every_report_once(researcher):
    survey = make_survey(researcher, FAMILIES[:4], plain=False)
    submit_bulk(survey, 60)
    barrier = threading.Barrier(4)
    threads = [
        threading.Thread(target=_refresh_in_thread, args=(survey.pk, barrier))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert set(_ns(survey).values()) == {60}
    assert tally_stats(survey) == direct_stats(survey)
