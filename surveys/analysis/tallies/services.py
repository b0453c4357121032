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
The horizon is fixed when a run starts, and the run walks from the watermark
in keyset windows of at most a batch (``windows``: an id bound, read from
nothing where the survey's reports are dense), each read once by index
ranges (``report_store.index_reads``).  As it counts a window the run records
the largest submission id it covers (``TallyWatermark.last_submission_id``),
so a release is that bound (copied to its snapshot) and reads no report
again.

Plan statistics relied upon: the histogram of ``id`` of the survey's report
partition (``pg_stats``).  Within it, the planner reads a window by the
primary key or the (question, id) index, in proportion to the window; past
it (a bulk load leaves it ending below the new ids) it takes any range of
new ids for nearly empty and may read a whole backlog for one window.  So a
run with more than a batch of ids to fold first checks that the histogram
reaches ``horizon - k`` (``report_store.statistics_cover``), else refreshes
it itself, once (``report_store.analyze_survey_reports``: ``ANALYZE`` of the
partition and the answer and skip tables, at most 30,000 rows sampled each).

Unprotected answers and skips, and submissions with no protected report
-----------------------------------------------------------------------
The same batch adds the unprotected answers and skips of the submissions it
covers first (``answers.covered_between``: one range of submission ids), so
a snapshot reads only tallies.  A survey's submissions and reports take ids
in the same order (stored together under the survey's row lock), so a
window covers the submissions up to the largest with a report in it, and
the last one every one the fence saw (``report_store.horizons``): those with
no protected report are counted between the others, released with them.
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
from django.utils import timezone

import ldp
from surveys.analysis.models import Tally, TallyWatermark
from surveys.analysis.results import selectors
from surveys.analysis.tallies import answers, cells, windows
from surveys.authoring.compiled import compiled_mechanism
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.collection import report_codec, report_store
from surveys.collection.models import Report, Submission

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
    covered: int = 0  # submissions newly counted (with or without a report)


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


def tallies_refresh(
    *,
    survey_id: int,
    batch_size: int | None = None,
    lock_timeout_ms: int | None = None,
) -> RefreshOutcome:
    """Fold the survey's reports past its watermark into its tallies, with the
    unprotected answers and skips of the submissions they cover (those with
    no protected report too, by submission id order).

    Idempotent and safe to run concurrently or late; reads each new report
    once (see the module notes).
    """
    size = resolved_batch_size(batch_size)
    if not Survey.objects.filter(pk=survey_id).exists():
        return RefreshOutcome(survey_id, 0, 0)  # deleted since it was enqueued
    fence = report_store.horizons(
        survey_id=survey_id, lock_timeout_ms=lock_timeout_ms or LOCK_TIMEOUT_MS
    )
    if fence is None:
        mark = TallyWatermark.objects.filter(survey_id=survey_id).first()
        return RefreshOutcome(
            survey_id, 0, mark.last_report_id if mark else 0, deferred=True
        )
    horizon, last_submission = fence
    specs = _Specs(survey_id)
    question_ids = _question_ids(survey_id)
    folded, covered, analyzed, dense = 0, 0, False, True
    while True:
        with transaction.atomic():
            report_store.index_reads()
            mark = _locked_watermark(survey_id)
            start = mark.last_report_id
            if not mark.cells_counted:
                _count_cells_once(survey_id, mark, size)
            if start >= horizon and mark.last_submission_id >= last_submission:
                return RefreshOutcome(
                    survey_id, folded, start, analyzed=analyzed, covered=covered
                )
            if not folded and _statistics_due(
                survey_id, question_ids, start=start, horizon=horizon, size=size
            ):
                report_store.analyze_survey_reports(
                    survey_id=survey_id, question_id=question_ids[0]
                )
                analyzed = True
            end = max(
                start,
                windows.next_end(
                    survey_id,
                    question_ids,
                    start=start,
                    horizon=horizon,
                    size=size,
                    dense=dense,
                ),
            )
            rows, new = _fold_window(
                mark,
                specs,
                question_ids,
                end=end,
                up_to=last_submission if end >= horizon else 0,
            )
            folded += len(rows)
            covered += len(new)
            dense = windows.is_dense(len(rows), start=start, end=end)
        if end >= horizon and mark.last_submission_id >= last_submission:
            return RefreshOutcome(
                survey_id, folded, end, analyzed=analyzed, covered=covered
            )
        _batch_delay()


_MOVED = ["last_report_id", "refreshed_at", "responses", "last_submission_id"]


def _fold_window(
    mark: TallyWatermark,
    specs: _Specs,
    question_ids: list[int],
    *,
    end: int,
    up_to: int,
) -> tuple[list[windows.Row], list[int]]:
    """Under the watermark lock: add the reports in ``(watermark, end]`` and
    the submissions they cover first (up to the largest with a report in the
    window, and at least ``up_to``: at the horizon, every one the fence saw)
    to the tallies, and move the watermark; return the reports and those
    submissions."""
    survey_id = mark.survey_id
    rows = windows.window_rows(
        survey_id, question_ids, start=mark.last_report_id, end=end
    )
    _add_to_tallies(survey_id, _aggregate((r[1:5] for r in rows), specs))
    up_to = max(mark.last_submission_id, up_to, *(r[0] for r in rows))
    new = answers.fold_covered(
        survey_id=survey_id, after=mark.last_submission_id, up_to=up_to
    )
    if rows or new:
        cells.add(
            survey_id=survey_id, change=cells.of_rows(survey_id, rows, specs, new)
        )
    mark.responses += len(new)
    mark.last_submission_id = up_to
    mark.last_report_id = end
    mark.refreshed_at = timezone.now()
    mark.save(update_fields=_MOVED)
    return rows, new


def _count_cells_once(survey_id: int, mark: TallyWatermark, size: int) -> None:
    """Count the joint and pattern tallies up to the watermark, once, for a
    survey tallied before they existed (under the watermark lock)."""
    _, _, counted = count_reports(
        survey_id,
        end=mark.last_report_id,
        batch_size=size,
        with_cells=True,
        last_submission_id=mark.last_submission_id,
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


def tallies_withdraw(
    *, survey_id: int, report_ids: list[int], submission_ids: list[int] | None = None
) -> int:
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
        # Its answers were counted with the tallies that cover it.
        covered = sorted(
            Submission.objects.filter(
                survey_id=survey_id,
                is_test=False,
                pk__in=sorted(
                    {r[0] for r in rows} if submission_ids is None else submission_ids
                ),
                pk__lte=mark.last_submission_id,
            ).values_list("pk", flat=True)
        )
        if not rows and not covered:
            return 0
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
    survey_id: int,
    *,
    end: int,
    batch_size: int,
    with_cells: bool = False,
    last_submission_id: int | None = None,
) -> tuple[dict[tuple[int, int], ldp.SupportCounts], int, cells.Cells]:
    """Aggregate every report of the survey with an id up to ``end``, read in
    keyset windows of at most ``batch_size`` (:func:`windows.next_end`); return the
    aggregates, the reports counted and (``with_cells``: else empty) their
    joint and pattern aggregates (``cells``), each submission counted in its
    pattern in the window that covers it first, and those with no report up
    to ``last_submission_id`` (else the last with a report) after them."""
    specs = _Specs(survey_id)
    question_ids = _question_ids(survey_id)
    totals: dict[tuple[int, int], ldp.SupportCounts] = {}
    joint = cells.Cells()
    start, counted, dense, covered = 0, 0, True, 0
    while start < end:
        window = windows.next_end(
            survey_id,
            question_ids,
            start=start,
            horizon=end,
            size=batch_size,
            dense=dense,
        )
        rows = windows.window_rows(survey_id, question_ids, start=start, end=window)
        for key, stat in _aggregate((r[1:5] for r in rows), specs).items():
            totals[key] = totals[key] + stat if key in totals else stat
            counted += stat.n
        if with_cells and rows:
            up_to = max(covered, *(r[0] for r in rows))
            new = answers.covered_between(
                survey_id=survey_id, after=covered, up_to=up_to
            )
            joint += cells.of_rows(survey_id, rows, specs, new)
            covered = up_to
        dense = windows.is_dense(len(rows), start=start, end=window)
        start = window
    if with_cells and last_submission_id is not None and last_submission_id > covered:
        new = answers.covered_between(
            survey_id=survey_id, after=covered, up_to=last_submission_id
        )
        joint += cells.of_rows(survey_id, [], specs, new)
    return totals, counted, joint


def tallies_recount(*, survey_id: int, batch_size: int | None = None) -> int:
    """Recompute the survey's tallies from scratch; return the reports counted.

    Counts every report up to the horizon (or the current watermark, if that is
    higher, so the watermark never moves back) and replaces the tallies, and
    the answer and skip tallies, in one transaction.
    """
    size = resolved_batch_size(batch_size)
    fence = report_store.horizons(survey_id=survey_id, lock_timeout_ms=LOCK_TIMEOUT_MS)
    if fence is None:
        raise OperationalError("submissions stayed in flight; recount again later")
    with transaction.atomic():
        mark = _locked_watermark(survey_id)
        end = max(fence[0], mark.last_report_id)
        last_submission = max(fence[1], mark.last_submission_id)
        totals, counted, counted_cells = count_reports(
            survey_id,
            end=end,
            batch_size=size,
            with_cells=True,
            last_submission_id=last_submission,
        )
        Tally.objects.filter(question__survey_id=survey_id).delete()
        Tally.objects.bulk_create(
            Tally(question_id=q, spec_revision=r, n=stat.n, stat=stat.to_dict())
            for (q, r), stat in sorted(totals.items())
        )
        answers.replace(
            survey_id=survey_id,
            counts=answers.counts_up_to(
                survey_id=survey_id, last_submission_id=last_submission
            ),
        )
        cells.replace(survey_id=survey_id, cells=counted_cells)
        if not mark.cells_counted:
            mark.cells_counted = True
            mark.save(update_fields=["cells_counted"])
        mark.responses = selectors.responses_up_to(
            survey_id=survey_id, last_submission_id=last_submission
        )
        mark.last_submission_id = last_submission
        mark.save(update_fields=["responses", "last_submission_id"])
        if end != mark.last_report_id or counted:
            mark.last_report_id = end
            mark.refreshed_at = timezone.now()
            mark.save(update_fields=["last_report_id", "refreshed_at"])
    return counted
