"""Writes for analysis: advance tallies incrementally, or recount them; snapshots.

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
a refresh takes a *horizon fence*: it locks the report table in SHARE mode
(which waits until every transaction that has inserted reports has committed
or rolled back, and holds new inserts off for the instant it takes) and reads
the largest report id.  Every id at or below that horizon is then either
visible or gone for good (a rolled-back insert), so folding up to it is safe.
The fence waits at most ``LOCK_TIMEOUT_MS``; past that the refresh defers
(folds nothing) and the next refresh or the periodic reconciliation retries,
so a slow submission is never held up for longer.
"""

from __future__ import annotations

import logging
import os
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import OperationalError, transaction
from django.utils import timezone

import ldp
from surveys.analysis.models import ResultSnapshot, Tally, TallyWatermark
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import document_readable, results_to_document
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


def _batch_size(batch_size: int | None) -> int:
    size = batch_size or int(os.environ.get(BATCH_SIZE_ENV) or BATCH_SIZE)
    if size < 1:
        raise ValueError(f"batch_size is {size!r}; allowed: a positive integer")
    return size


def _batch_delay() -> None:
    delay = float(os.environ.get(BATCH_DELAY_ENV) or 0)
    if delay > 0:
        time.sleep(delay)


# --- the horizon fence -----------------------------------------------------------
def report_horizon(*, lock_timeout_ms: int | None = None) -> int | None:
    """The largest report id below which no report can still appear, or None
    when in-flight submissions did not finish within the lock timeout
    (``LOCK_TIMEOUT_MS`` unless given; ``report_store.report_horizon``)."""
    return report_store.report_horizon(
        lock_timeout_ms=lock_timeout_ms or LOCK_TIMEOUT_MS
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


def _add_to_tallies(
    survey_id: int, stats: dict[tuple[int, int], ldp.SupportCounts]
) -> None:
    tallies = {
        (t.question_id, t.spec_revision): t
        for t in Tally.objects.select_for_update().filter(question__survey_id=survey_id)
    }
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
    """Fold the survey's reports past its watermark into its tallies.

    Idempotent and safe to run concurrently or late (see the module notes).
    """
    size = _batch_size(batch_size)
    if not Survey.objects.filter(pk=survey_id).exists():
        return RefreshOutcome(survey_id, 0, 0)  # deleted since it was enqueued
    horizon = report_horizon(lock_timeout_ms=lock_timeout_ms)
    if horizon is None:
        mark = TallyWatermark.objects.filter(survey_id=survey_id).first()
        return RefreshOutcome(
            survey_id, 0, mark.last_report_id if mark else 0, deferred=True
        )
    specs = _Specs(survey_id)
    question_ids = _question_ids(survey_id)
    folded = 0
    while True:
        with transaction.atomic():
            mark = _locked_watermark(survey_id)
            start = mark.last_report_id
            if start >= horizon:
                return RefreshOutcome(survey_id, folded, start)
            rows = list(
                Report.objects.filter(
                    survey_id=survey_id,  # one partition
                    question_id__in=question_ids,
                    id__gt=start,
                    id__lte=horizon,
                )
                .order_by("id")
                .values_list("id", "question_id", "spec_revision", "value", "bits")[
                    :size
                ]
            )
            full = len(rows) == size
            _add_to_tallies(survey_id, _aggregate((r[1:] for r in rows), specs))
            mark.last_report_id = rows[-1][0] if full else horizon
            mark.refreshed_at = timezone.now()
            mark.save(update_fields=["last_report_id", "refreshed_at"])
            folded += len(rows)
        if not full:
            return RefreshOutcome(survey_id, folded, mark.last_report_id)
        _batch_delay()


def tallies_withdraw(*, survey_id: int, report_ids: list[int]) -> int:
    """Subtract withdrawn reports from the tallies; return how many were tallied.

    The statistic is a sum over reports (``ldp.SupportCounts``), so removing
    reports subtracts their aggregate.  Only reports at or below the watermark
    were ever added; the others are simply never folded.  Runs in the caller's
    transaction (which deletes the reports) under the watermark lock, so a
    refresh sees either both the old tallies and the reports, or neither.
    """
    with transaction.atomic():
        mark = _locked_watermark(survey_id)
        rows = list(
            Report.objects.filter(
                survey_id=survey_id, id__in=report_ids, id__lte=mark.last_report_id
            ).values_list("question_id", "spec_revision", "value", "bits")
        )
        if not rows:
            return 0
        stats = _aggregate(rows, _Specs(survey_id))
        tallies = {
            (t.question_id, t.spec_revision): t
            for t in Tally.objects.select_for_update().filter(
                question__survey_id=survey_id
            )
        }
        for key, stat in stats.items():
            tally = tallies[key]
            held = ldp.SupportCounts.from_dict(tally.stat)
            left = ldp.SupportCounts(
                held.n - stat.n, held.counts - stat.counts, held.spec
            )
            tally.stat, tally.n = left.to_dict(), left.n
            tally.save(update_fields=["stat", "n", "updated_at"])
    return len(rows)


def _count_reports(
    survey_id: int, *, end: int, batch_size: int
) -> tuple[dict[tuple[int, int], ldp.SupportCounts], int]:
    """Aggregate every report of the survey with an id up to ``end``, read in
    batches of ``batch_size``; return the aggregates and the reports counted."""
    specs = _Specs(survey_id)
    question_ids = _question_ids(survey_id)
    totals: dict[tuple[int, int], ldp.SupportCounts] = {}
    start, counted = 0, 0
    while True:
        rows = list(
            Report.objects.filter(
                survey_id=survey_id,
                question_id__in=question_ids,
                id__gt=start,
                id__lte=end,
            )
            .order_by("id")
            .values_list("id", "question_id", "spec_revision", "value", "bits")[
                :batch_size
            ]
        )
        for key, stat in _aggregate((r[1:] for r in rows), specs).items():
            totals[key] = totals[key] + stat if key in totals else stat
        counted += len(rows)
        if len(rows) < batch_size:
            break
        start = rows[-1][0]
    return totals, counted


def tallies_recount(*, survey_id: int, batch_size: int | None = None) -> int:
    """Recompute the survey's tallies from scratch; return the reports counted.

    Counts every report up to the horizon (or the current watermark, if that is
    higher, so the watermark never moves back) and replaces the tallies in one
    transaction.
    """
    size = _batch_size(batch_size)
    horizon = report_horizon()
    if horizon is None:
        raise OperationalError("submissions stayed in flight; recount again later")
    with transaction.atomic():
        mark = _locked_watermark(survey_id)
        end = max(horizon, mark.last_report_id)
        totals, counted = _count_reports(survey_id, end=end, batch_size=size)
        Tally.objects.filter(question__survey_id=survey_id).delete()
        Tally.objects.bulk_create(
            Tally(question_id=q, spec_revision=r, n=stat.n, stat=stat.to_dict())
            for (q, r), stat in sorted(totals.items())
        )
        if end != mark.last_report_id or counted:
            mark.last_report_id = end
            mark.refreshed_at = timezone.now()
            mark.save(update_fields=["last_report_id", "refreshed_at"])
    return counted


# --- snapshots: the results, computed once per change ------------------------------
SNAPSHOT_DELAY_ENV = "DENIABLE_SNAPSHOT_DELAY"  # test-only, like BATCH_DELAY_ENV


@dataclass(frozen=True)
class SnapshotOutcome:
    """What one snapshot computation did."""

    survey_id: int
    advanced: bool  # a new snapshot replaced the previous one
    watermark: int  # of the snapshot now stored (0: none)
    version: int  # of the snapshot now stored (0: none)
    waiting: int = 0  # new submissions held back by batching


def snapshot_batch_ready(
    *, new_responses: int, since: datetime | None, now: datetime
) -> bool:
    """Whether a snapshot may advance by ``new_responses`` submissions.

    It advances once at least ``SNAPSHOT_MIN_NEW_SUBMISSIONS`` submissions are
    new, or once ``SNAPSHOT_MAX_WAIT_SECONDS`` have passed since the previous
    snapshot (``since``) with any new submission (so that nothing accepted is
    left out of the results for ever; 0 turns the period off).
    """
    if new_responses <= 0:
        return False
    if new_responses >= settings.SNAPSHOT_MIN_NEW_SUBMISSIONS:
        return True
    period = settings.SNAPSHOT_MAX_WAIT_SECONDS
    if not period or since is None:
        return False
    return (now - since).total_seconds() >= period


def _snapshot_delay() -> None:
    delay = float(os.environ.get(SNAPSHOT_DELAY_ENV) or 0)
    if delay > 0:
        time.sleep(delay)


def _tally_inputs(
    survey_id: int,
) -> tuple[int, datetime | None, dict[tuple[int, int], ldp.SupportCounts]]:
    """(watermark, refreshed_at, tallies), read together.

    The watermark row is locked while the tallies are read, so a refresh's
    batch cannot commit in between: the tallies are exactly those of the
    reports up to the watermark.
    """
    with transaction.atomic():
        mark = (
            TallyWatermark.objects.select_for_update()
            .filter(survey_id=survey_id)
            .first()
        )
        tallies = {
            (t.question_id, t.spec_revision): ldp.SupportCounts.from_dict(t.stat)
            for t in Tally.objects.filter(question__survey_id=survey_id)
        }
    if mark is None:
        return 0, None, tallies
    return mark.last_report_id, mark.refreshed_at, tallies


def _document_time(value: Any) -> datetime | None:
    """A time a snapshot document stored as ISO 8601 text (None if absent)."""
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def _lock_snapshot(survey_id: int) -> None:
    """Inside the swapping transaction: two snapshot computations of one
    survey swap in turn, on the survey's row (a submission holds it for its
    insert only; the swap takes milliseconds)."""
    list(
        Survey.objects.select_for_update(no_key=True)
        .filter(pk=survey_id)
        .values_list("pk", flat=True)
    )


def snapshot_refresh(*, survey_id: int, force: bool = False) -> SnapshotOutcome:
    """Compute the survey's results from its tallies and store them as its snapshot.

    Idempotent: a snapshot already at the tallies' watermark under the same
    questions is kept as it is.  Unless ``force`` (an operator's recount),
    batching holds the snapshot back until enough submissions are new
    (:func:`snapshot_batch_ready`); a change to the questions always advances it.
    The results are computed outside any transaction and swapped in one
    short transaction that compares watermarks, so a computation killed half
    way leaves the previous snapshot in place and a late or concurrent one
    never replaces a newer snapshot.
    """
    survey = Survey.objects.filter(pk=survey_id).first()
    if survey is None:
        return SnapshotOutcome(survey_id, False, 0, 0)  # deleted since enqueued
    current = selectors.latest_snapshot(survey_id=survey_id)
    questions = selectors.survey_questions(survey)
    definition = selectors.survey_definition(questions)
    watermark, refreshed_at, tallies = _tally_inputs(survey_id)
    same_questions = (
        current is not None
        and current.definition == definition
        and document_readable(current.document)
    )
    if (
        not force
        and current is not None
        and same_questions
        and current.watermark >= watermark
    ):
        return SnapshotOutcome(survey_id, False, current.watermark, current.version)
    start = current.watermark if current is not None and not force else 0
    new = selectors.responses_between(survey_id=survey_id, after=start, up_to=watermark)
    now = timezone.now()
    first_and_empty = current is None and new == 0
    if not (force or first_and_empty):
        since = current.computed_at if current is not None else survey.published_at
        if not snapshot_batch_ready(new_responses=new, since=since, now=now):
            if current is not None and same_questions:
                return SnapshotOutcome(
                    survey_id, False, current.watermark, current.version, new
                )
            if current is not None:
                # The questions changed inside a batch: the results follow the
                # new questions, but from the reports the current snapshot
                # already covers, so an edit never moves them past a batch
                # (editing after each response must not isolate it).
                if current.watermark != watermark:
                    watermark = current.watermark
                    tallies, _ = _count_reports(
                        survey_id, end=watermark, batch_size=_batch_size(None)
                    )
                    refreshed_at = _document_time(current.document.get("refreshed_at"))
                new = 0
            else:
                # The first snapshot waits for a batch too: until then it holds
                # the results of no reports (every question at n = 0).
                watermark, refreshed_at, tallies, new = 0, None, {}, 0
    responses = new if force or current is None else current.responses + new
    results = selectors.results_from_tallies(
        survey=survey,
        questions=questions,
        tallies=tallies,
        refreshed_at=refreshed_at,
        # Item non-response of the same submissions as the tallies.
        skipped=selectors.skips_up_to(survey_id=survey_id, watermark=watermark),
        plain_answers=selectors.plain_answers_up_to(
            survey_id=survey_id, watermark=watermark
        ),
    )
    document = results_to_document(results)
    _snapshot_delay()
    with transaction.atomic():
        _lock_snapshot(survey_id)
        latest = selectors.latest_snapshot(survey_id=survey_id)
        if latest is not None and (
            latest.watermark > watermark
            or (
                not force
                and latest.watermark == watermark
                and latest.definition == definition
                and document_readable(latest.document)
            )
        ):
            # A concurrent or earlier run stored this snapshot or a newer one.
            return SnapshotOutcome(survey_id, False, latest.watermark, latest.version)
        version = latest.version + 1 if latest is not None else 1
        if latest is not None:
            latest.delete()
        ResultSnapshot.objects.create(
            survey=survey,
            version=version,
            watermark=watermark,
            responses=responses,
            spec_revisions={str(q.pk): q.spec_revision for q in questions},
            definition=definition,
            document=document,
            computed_at=now,
        )
    return SnapshotOutcome(survey_id, True, watermark, version)


def snapshot_after_withdrawal(*, survey_id: int) -> SnapshotOutcome:
    """Recompute the current snapshot over the same reports, minus withdrawn ones.

    The snapshot keeps its watermark (a withdrawal never moves results past a
    batch: reports held back by batching stay out), recounts the remaining
    reports up to it and replaces the stored snapshot with a new version.
    """
    survey = Survey.objects.filter(pk=survey_id).first()
    current = selectors.latest_snapshot(survey_id=survey_id)
    if survey is None or current is None:
        return SnapshotOutcome(survey_id, False, 0, 0)
    questions = selectors.survey_questions(survey)
    tallies, _ = _count_reports(
        survey_id, end=current.watermark, batch_size=_batch_size(None)
    )
    results = selectors.results_from_tallies(
        survey=survey,
        questions=questions,
        tallies=tallies,
        refreshed_at=_document_time(current.document.get("refreshed_at")),
        # Item non-response and unprotected answers of the same submissions.
        skipped=selectors.skips_up_to(survey_id=survey_id, watermark=current.watermark),
        plain_answers=selectors.plain_answers_up_to(
            survey_id=survey_id, watermark=current.watermark
        ),
    )
    document = results_to_document(results)
    responses = selectors.responses_between(
        survey_id=survey_id, after=0, up_to=current.watermark
    )
    with transaction.atomic():
        _lock_snapshot(survey_id)
        latest = selectors.latest_snapshot(survey_id=survey_id)
        if latest is None or latest.watermark != current.watermark:
            # Replaced meanwhile, from tallies that were already corrected.
            return SnapshotOutcome(
                survey_id,
                False,
                latest.watermark if latest else 0,
                latest.version if latest else 0,
            )
        version = latest.version + 1
        latest.delete()
        ResultSnapshot.objects.create(
            survey=survey,
            version=version,
            watermark=current.watermark,
            responses=responses,
            spec_revisions={str(q.pk): q.spec_revision for q in questions},
            definition=selectors.survey_definition(questions),
            document=document,
            computed_at=timezone.now(),
        )
    return SnapshotOutcome(survey_id, True, current.watermark, version)
