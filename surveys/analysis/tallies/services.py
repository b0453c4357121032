"""Writes for analysis: advance tallies incrementally, or recount them.

Consistency model
-----------------
A survey's tallies always equal the aggregate of exactly the survey's reports
with ``id <= watermark``.  Each batch is one transaction that locks the
survey's watermark row and its tally rows, adds the batch's aggregate and
moves the watermark to the batch's last id, so a run killed half-way leaves a
consistent prefix and a rerun continues from it; two runs of the same survey
serialize on the lock, and a run that finds the watermark already at its
horizon does nothing: the watermark never moves back and no report is
counted twice.

Reports committed out of id order
---------------------------------
Ids come from a sequence when a row is inserted, but transactions commit in
any order: a report with id 10 may become visible after one with id 11.  A
watermark moved to 11 would then skip report 10 for ever.  Before folding,
a refresh takes the survey's *horizon fence* (``report_store.report_horizon``):
it waits until every transaction inserting reports of this survey has
committed or rolled back, holding the survey's new inserts off for the
instant it takes, and reads the largest report id.  Every id of the survey at
or below that horizon is then either visible or gone for good, so folding up
to it is safe.  The fence is per survey: refreshes and submissions of other
surveys never wait for it.  It waits at most ``LOCK_TIMEOUT_MS``; past that
the refresh defers (folds nothing) and the next refresh or the periodic
reconciliation retries, so a slow submission is never held up for longer.

Catching up: each report read once
----------------------------------
The upper bound (the horizon) is fixed when a run starts, and the run walks
from the watermark in keyset windows ``(start, end]`` of at most a batch of
reports.  Ids are unique, so ``end = min(horizon, start + size)`` bounds a
window without reading anything, and its reports are then read once, by
index ranges (``report_store.index_reads``); the next window starts at
``end``.  Only where the survey's reports turn out sparse among the ids
(other surveys' reports between them: a window held under one in
``DENSE_SHARE`` of its ids) is the next end found from the reports, as the
id of each question's ``k``-th report past ``start`` (``k`` = the batch over
the questions) on the (question, id) index (:func:`_window_end`), which reads
those windows' index entries twice.  A survey's own backlog is dense: each
report is read once, however large (tested:
``test_catching_up_on_a_backlog_reads_each_new_report_once``).  As it counts
a window the run records the largest submission id it covers
(``TallyWatermark.last_submission_id``), so a release marks its batch by a
range of submission ids and reads no report again (``snapshots``).

Plan statistics relied upon: the histogram of ``id`` of the survey's report
partition (``pg_stats``).  Within it, the planner estimates a window's rows
and reads the window by the primary key or the (question, id) index, both
proportional to the window; beyond it (a bulk load leaves the histogram
ending below the new ids) it takes any range of new ids for nearly empty and
may read a whole backlog by the primary key and sort it to find one window's
end.  So a run whose reports to fold may exceed a batch (``horizon - start``
ids bound them) first checks that the histogram reaches ``horizon - k``
(``report_store.statistics_cover``) and otherwise refreshes it itself, once
(``report_store.analyze_survey_reports``: ``ANALYZE`` of the partition and
of the answer and skip tables, a sample of at most 30,000 rows each whatever
their size).  The look-up of which
submissions a window covers first is one probe of the (submission, question,
survey) index (``answers.newly_covered``), needing no statistics.

Unprotected answers and skips
-----------------------------
The same batch adds the unprotected answers and skips of the submissions it
covers first (``answer_tallies``), in the same transaction under the same
watermark, so a snapshot reads only tallies.
"""

from __future__ import annotations

import logging
import os
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import OperationalError, transaction
from django.db.models import Max
from django.utils import timezone

import ldp
from surveys.analysis.models import Tally, TallyWatermark
from surveys.analysis.results import selectors
from surveys.analysis.tallies import answers, cells
from surveys.authoring.compiled import compiled_mechanism
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.collection import report_codec, report_store
from surveys.collection.models import Report

logger = logging.getLogger(__name__)

BATCH_SIZE = 50_000
LOCK_TIMEOUT_MS = 1_000
# Test-only: seconds to sleep after each committed batch, so a test can kill a
# worker in the middle of a refresh.  Unset (0) in every real deployment.
BATCH_DELAY_ENV = "DENIABLE_TALLY_BATCH_DELAY"
BATCH_SIZE_ENV = "DENIABLE_TALLY_BATCH_SIZE"


@dataclass(frozen=True)
class RefreshOutcome:
    """What one refresh did."""

    survey_id: int
    folded: int  # reports added to the tallies by this run
    watermark: int  # the watermark after the run
    deferred: bool = False  # the horizon fence timed out; nothing was folded
    analyzed: bool = False  # the run refreshed the planner's statistics


def resolved_batch_size(batch_size: int | None) -> int:
    """``batch_size``, else the environment's (test-only), else ``BATCH_SIZE``."""
    size = batch_size or int(os.environ.get(BATCH_SIZE_ENV) or BATCH_SIZE)
    if size < 1:
        raise ValueError(f"batch_size is {size!r}; allowed: a positive integer")
    return size


def _batch_delay() -> None:
    delay = float(os.environ.get(BATCH_DELAY_ENV) or 0)
    if delay > 0:
        time.sleep(delay)


# --- the horizon fence -----------------------------------------------------------
def report_horizon(*, survey_id: int, lock_timeout_ms: int | None = None) -> int | None:
    """The largest report id below which no report of the survey can still
    appear, or None when its in-flight submissions did not finish within the
    lock timeout (``LOCK_TIMEOUT_MS`` unless given;
    ``report_store.report_horizon``)."""
    return report_store.report_horizon(
        survey_id=survey_id, lock_timeout_ms=lock_timeout_ms or LOCK_TIMEOUT_MS
    )


# --- folding -----------------------------------------------------------------------
class _Specs:
    """The specs of a survey's questions, per (question, revision)."""

    def __init__(self, survey_id: int):
        self.specs: dict[tuple[int, int], Any] = {
            (r.question_id, r.revision): r.spec
            for r in SpecRevision.objects.filter(question__survey_id=survey_id)
        }
        for q in Question.objects.filter(survey_id=survey_id, spec__isnull=False):
            self.specs.setdefault((q.pk, q.spec_revision), q.spec)

    def mechanism(self, key: tuple[int, int]) -> ldp.Mechanism:
        if key not in self.specs:
            raise LookupError(
                f"question {key[0]} has reports under spec revision {key[1]} "
                "but no stored spec for it; allowed: revisions with a SpecRevision"
            )
        return compiled_mechanism(self.specs[key])


def _aggregate(
    rows: Iterable[tuple[int, int, Any, Any]], specs: _Specs
) -> dict[tuple[int, int], ldp.SupportCounts]:
    """Aggregate stored (question_id, spec_revision, value, bits) rows per
    revision, straight from their compact columns (``report_codec``)."""
    stored: dict[tuple[int, int], list[tuple[Any, Any]]] = defaultdict(list)
    for question_id, revision, value, bits in rows:
        stored[(question_id, revision)].append((value, bits))
    return {
        key: report_codec.stored_counts(specs.mechanism(key), reports)
        for key, reports in stored.items()
    }


def _question_ids(survey_id: int) -> list[int]:
    return list(
        Question.objects.filter(survey_id=survey_id).values_list("pk", flat=True)
    )


def _locked_watermark(survey_id: int) -> TallyWatermark:
    TallyWatermark.objects.bulk_create(
        [TallyWatermark(survey_id=survey_id)], ignore_conflicts=True
    )
    return TallyWatermark.objects.select_for_update().get(survey_id=survey_id)


def locked_tallies(survey_id: int) -> dict[tuple[int, int], Tally]:
    """The survey's report tallies by (question, revision), their rows locked
    until the transaction ends.

    Only the tally rows (``FOR NO KEY UPDATE OF`` the tally): locking the
    questions they are joined to would make a submission's report insert,
    whose foreign-key check shares each question's key, wait for the batch,
    while the batch's cell inserts wait for that submission's lock on the
    survey row: a deadlock, answered to the respondent as an error."""
    return {
        (t.question_id, t.spec_revision): t
        for t in Tally.objects.select_for_update(of=("self",), no_key=True).filter(
            question__survey_id=survey_id
        )
    }


def _add_to_tallies(
    survey_id: int, stats: dict[tuple[int, int], ldp.SupportCounts]
) -> None:
    tallies = locked_tallies(survey_id)
    for key, stat in stats.items():
        tally = tallies.get(key)
        if tally is None:
            Tally.objects.create(
                question_id=key[0], spec_revision=key[1], n=stat.n, stat=stat.to_dict()
            )
            continue
        total = ldp.SupportCounts.from_dict(tally.stat) + stat
        tally.stat, tally.n = total.to_dict(), total.n
        tally.save(update_fields=["stat", "n", "updated_at"])


def _window_end(
    survey_id: int, question_ids: list[int], *, start: int, horizon: int, size: int
) -> int:
    """The end of the next keyset window past ``start``: at most ``size``
    reports in ``(start, end]`` (``size`` over the questions, per question),
    and at least one when any report is left below ``horizon``.  One
    ``OFFSET k-1 LIMIT 1`` per question on the (question, id) index, each
    bounded by the end found so far."""
    per_question = max(1, size // max(1, len(question_ids)))
    end = horizon
    for question_id in question_ids:
        kth = list(
            Report.objects.filter(
                survey_id=survey_id,
                # A range, not "=": ordered by (question, id), which only the
                # (question, id) index gives (with "=" the planner drops the
                # question from the order and may walk the primary key).
                question_id__gte=question_id,
                question_id__lte=question_id,
                id__gt=start,
                id__lte=end,
            )
            .order_by("question_id", "id")
            .values_list("id", flat=True)[per_question - 1 : per_question]
        )
        if kth:
            end = kth[0]
    return end


# A window of ``size`` ids is taken unprobed while the survey's reports held
# at least this share of the previous window's ids.
DENSE_SHARE = 8


def _next_end(
    survey_id: int,
    question_ids: list[int],
    *,
    start: int,
    horizon: int,
    size: int,
    dense: bool,
) -> int:
    """The end of the next window past ``start``, at most ``size`` reports.

    Ids are unique, so ``(start, start + size]`` holds at most ``size``
    reports: that window needs no read to find (the whole rest when
    ``horizon - start <= size``).  Only where the survey's reports were
    sparse among the ids (the previous window held under one in
    ``DENSE_SHARE`` of its ids: other surveys' reports between them) is the
    end found by :func:`_window_end`, which reads the window's index entries
    once more, so windows stay near a batch instead of many small ones."""
    if horizon - start <= size or dense:
        return min(horizon, start + size)
    return _window_end(survey_id, question_ids, start=start, horizon=horizon, size=size)


def _is_dense(reports: int, *, start: int, end: int) -> bool:
    return DENSE_SHARE * reports >= end - start


def tallies_refresh(
    *,
    survey_id: int,
    batch_size: int | None = None,
    lock_timeout_ms: int | None = None,
) -> RefreshOutcome:
    """Fold the survey's reports past its watermark into its tallies, with the
    unprotected answers and skips of the submissions they cover.

    Idempotent and safe to run concurrently or late; reads each new report
    once (see the module notes).
    """
    size = resolved_batch_size(batch_size)
    if not Survey.objects.filter(pk=survey_id).exists():
        return RefreshOutcome(survey_id, 0, 0)  # deleted since it was enqueued
    horizon = report_horizon(survey_id=survey_id, lock_timeout_ms=lock_timeout_ms)
    if horizon is None:
        mark = TallyWatermark.objects.filter(survey_id=survey_id).first()
        return RefreshOutcome(
            survey_id, 0, mark.last_report_id if mark else 0, deferred=True
        )
    specs = _Specs(survey_id)
    question_ids = _question_ids(survey_id)
    folded, analyzed, dense = 0, False, True
    while True:
        with transaction.atomic():
            report_store.index_reads()
            mark = _locked_watermark(survey_id)
            start = mark.last_report_id
            if not mark.cells_counted:
                _count_cells_once(survey_id, mark, size)
            if start >= horizon:
                return RefreshOutcome(survey_id, folded, start, analyzed=analyzed)
            if not folded and _statistics_due(
                survey_id, question_ids, start=start, horizon=horizon, size=size
            ):
                report_store.analyze_survey_reports(
                    survey_id=survey_id, question_id=question_ids[0]
                )
                analyzed = True
            end = _next_end(
                survey_id,
                question_ids,
                start=start,
                horizon=horizon,
                size=size,
                dense=dense,
            )
            rows = list(
                Report.objects.filter(
                    survey_id=survey_id,  # one partition
                    question_id__in=question_ids,
                    id__gt=start,
                    id__lte=end,
                )
                .order_by()
                .values_list(
                    "submission_id",
                    "question_id",
                    "spec_revision",
                    "value",
                    "bits",
                    "id",
                )
            )
            _add_to_tallies(survey_id, _aggregate((r[1:5] for r in rows), specs))
            if rows:
                new = answers.fold_batch(
                    survey_id=survey_id,
                    submission_ids=(r[0] for r in rows),
                    first=min(rows, key=lambda r: r[5])[0],
                    start=start,
                )
                mark.responses += len(new)
                mark.last_submission_id = max(
                    mark.last_submission_id, max(r[0] for r in rows)
                )
                window = [r[:5] for r in rows]
                cells.add(
                    survey_id=survey_id,
                    change=cells.of_rows(survey_id, window, specs, new),
                )
            mark.last_report_id = end
            mark.refreshed_at = timezone.now()
            mark.save(
                update_fields=[
                    "last_report_id",
                    "refreshed_at",
                    "responses",
                    "last_submission_id",
                ]
            )
            folded += len(rows)
            dense = _is_dense(len(rows), start=start, end=end)
        if end >= horizon:
            return RefreshOutcome(survey_id, folded, end, analyzed=analyzed)
        _batch_delay()


def _count_cells_once(survey_id: int, mark: TallyWatermark, size: int) -> None:
    """Count the joint and pattern tallies up to the watermark, once, for a
    survey tallied before they existed (under the watermark lock)."""
    _, _, counted = count_reports(
        survey_id, end=mark.last_report_id, batch_size=size, with_cells=True
    )
    cells.replace(survey_id=survey_id, cells=counted)
    mark.cells_counted = True
    mark.save(update_fields=["cells_counted"])


def _statistics_due(
    survey_id: int, question_ids: list[int], *, start: int, horizon: int, size: int
) -> bool:
    """Whether to refresh the planner's statistics before the first window:
    when the reports to fold may be more than a batch (``horizon - start`` ids
    bound them) and the statistics do not know of ids that far."""
    if not question_ids or horizon - start <= size:
        return False
    return not report_store.statistics_cover(
        survey_id=survey_id, question_id=question_ids[0], up_to=horizon - size
    )


def tallies_withdraw(*, survey_id: int, report_ids: list[int]) -> int:
    """Subtract withdrawn reports from the tallies; return how many were tallied.

    The statistic is a sum over reports (``ldp.SupportCounts``), so removing
    reports subtracts their aggregate; a withdrawn submission with a tallied
    report also leaves the answer and skip tallies (``answer_tallies``).  Only
    reports at or below the watermark were ever added; the others are simply
    never folded.  Runs in the caller's transaction (which deletes the
    reports) under the watermark lock, so a refresh sees either both the old
    tallies and the reports, or neither.
    """
    with transaction.atomic():
        mark = _locked_watermark(survey_id)
        rows = list(
            Report.objects.filter(
                survey_id=survey_id, id__in=report_ids, id__lte=mark.last_report_id
            ).values_list(
                "submission_id", "question_id", "spec_revision", "value", "bits"
            )
        )
        if not rows:
            return 0
        # Its answers were counted with its first tallied report.
        covered = sorted({r[0] for r in rows})
        answers.subtract_withdrawn(survey_id=survey_id, covered_submission_ids=covered)
        mark.responses -= len(covered)
        mark.save(update_fields=["responses"])
        specs = _Specs(survey_id)
        cells.add(
            survey_id=survey_id,
            change=cells.of_rows(survey_id, rows, specs, covered).negated(),
        )
        stats = _aggregate((r[1:] for r in rows), specs)
        tallies = locked_tallies(survey_id)
        for key, stat in stats.items():
            tally = tallies[key]
            held = ldp.SupportCounts.from_dict(tally.stat)
            left = ldp.SupportCounts(
                held.n - stat.n, held.counts - stat.counts, held.spec
            )
            tally.stat, tally.n = left.to_dict(), left.n
            tally.save(update_fields=["stat", "n", "updated_at"])
    return len(rows)


def count_reports(
    survey_id: int, *, end: int, batch_size: int, with_cells: bool = False
) -> tuple[dict[tuple[int, int], ldp.SupportCounts], int, cells.Cells]:
    """Aggregate every report of the survey with an id up to ``end``, read in
    keyset windows of at most ``batch_size`` (:func:`_next_end`); return the
    aggregates, the reports counted and (``with_cells``: else empty) their
    joint and pattern aggregates (``cells``), each submission counted in its
    pattern in the window that covers it first."""
    specs = _Specs(survey_id)
    question_ids = _question_ids(survey_id)
    totals: dict[tuple[int, int], ldp.SupportCounts] = {}
    joint = cells.Cells()
    start, counted, dense = 0, 0, True
    while start < end:
        window = _next_end(
            survey_id,
            question_ids,
            start=start,
            horizon=end,
            size=batch_size,
            dense=dense,
        )
        rows = list(
            Report.objects.filter(
                survey_id=survey_id,
                question_id__in=question_ids,
                id__gt=start,
                id__lte=window,
            )
            .order_by()
            .values_list(
                "submission_id", "question_id", "spec_revision", "value", "bits", "id"
            )
        )
        for key, stat in _aggregate((r[1:5] for r in rows), specs).items():
            totals[key] = totals[key] + stat if key in totals else stat
            counted += stat.n
        if with_cells and rows:
            new = answers.newly_covered(
                survey_id=survey_id,
                submission_ids=(r[0] for r in rows),
                first=min(rows, key=lambda r: r[5])[0],
                start=start,
            )
            joint += cells.of_rows(survey_id, [r[:5] for r in rows], specs, new)
        dense = _is_dense(len(rows), start=start, end=window)
        start = window
    return totals, counted, joint


def tallies_recount(*, survey_id: int, batch_size: int | None = None) -> int:
    """Recompute the survey's tallies from scratch; return the reports counted.

    Counts every report up to the horizon (or the current watermark, if that is
    higher, so the watermark never moves back) and replaces the tallies, and
    the answer and skip tallies, in one transaction.
    """
    size = resolved_batch_size(batch_size)
    horizon = report_horizon(survey_id=survey_id)
    if horizon is None:
        raise OperationalError("submissions stayed in flight; recount again later")
    with transaction.atomic():
        mark = _locked_watermark(survey_id)
        end = max(horizon, mark.last_report_id)
        totals, counted, counted_cells = count_reports(
            survey_id, end=end, batch_size=size, with_cells=True
        )
        Tally.objects.filter(question__survey_id=survey_id).delete()
        Tally.objects.bulk_create(
            Tally(question_id=q, spec_revision=r, n=stat.n, stat=stat.to_dict())
            for (q, r), stat in sorted(totals.items())
        )
        answers.replace(
            survey_id=survey_id,
            counts=answers.counts_up_to(survey_id=survey_id, watermark=end),
        )
        cells.replace(survey_id=survey_id, cells=counted_cells)
        if not mark.cells_counted:
            mark.cells_counted = True
            mark.save(update_fields=["cells_counted"])
        mark.responses = selectors.responses_between(
            survey_id=survey_id, after=0, up_to=end
        )
        mark.last_submission_id = max(
            mark.last_submission_id,
            Report.objects.filter(survey_id=survey_id, id__lte=end).aggregate(
                top=Max("submission_id")
            )["top"]
            or 0,
        )
        mark.save(update_fields=["responses", "last_submission_id"])
        if end != mark.last_report_id or counted:
            mark.last_report_id = end
            mark.refreshed_at = timezone.now()
            mark.save(update_fields=["last_report_id", "refreshed_at"])
    return counted
