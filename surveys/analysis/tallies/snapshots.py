"""Writes for analysis: results snapshots, computed once per change.

A snapshot is the survey's results computed from its tallies (read together
with their watermark, so they are exactly those of the reports up to it) and
stored whole; pages, exports and the API read the latest one.  A snapshot
advances only by a batch of at least k new submissions
(``results.release``, the one release rule); its ``last_submission_id`` is
the release's bound, so a release writes one row, whatever its size.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

import ldp
from surveys.analysis.models import ResultSnapshot, Tally, TallyWatermark
from surveys.analysis.results import selectors
from surveys.analysis.results.answer_counts import AnswerCounts, stored_counts
from surveys.analysis.results.objects import document_readable, results_to_document
from surveys.analysis.results.release import snapshot_batch_ready
from surveys.analysis.tallies import cells
from surveys.analysis.tallies.answers import counts_up_to
from surveys.analysis.tallies.services import count_reports, resolved_batch_size
from surveys.authoring.models import Survey
from surveys.collection import report_store

logger = logging.getLogger(__name__)

SNAPSHOT_DELAY_ENV = "DENIABLE_SNAPSHOT_DELAY"  # test-only, like BATCH_DELAY_ENV


@dataclass(frozen=True)
class SnapshotOutcome:
    """What one snapshot computation did."""

    survey_id: int
    advanced: bool  # a new snapshot replaced the previous one
    watermark: int  # of the snapshot now stored (0: none)
    version: int  # of the snapshot now stored (0: none)
    waiting: int = 0  # new submissions held back by batching


def _snapshot_delay() -> None:
    delay = float(os.environ.get(SNAPSHOT_DELAY_ENV) or 0)
    if delay > 0:
        logger.info("Snapshot computed; storing it in %s s (test delay).", delay)
        time.sleep(delay)


@dataclass(frozen=True)
class TallyInputs:
    """What a snapshot is computed from, read together (:func:`_tally_inputs`)."""

    watermark: int
    refreshed_at: datetime | None
    tallies: dict[tuple[int, int], ldp.SupportCounts]
    answers: AnswerCounts
    responses: int  # counted submissions at or below ``last_submission_id``
    cells: dict[str, Any]  # joint and pattern tallies (``cells.stored``)
    last_submission_id: int = 0  # the largest submission id they cover


def _tally_inputs(survey_id: int) -> TallyInputs:
    """The watermark, the report tallies and the answer and skip tallies, read
    together: the watermark row is locked while they are read, so a refresh's
    batch cannot commit in between and every tally is exactly that of the
    submissions and reports up to the watermark.  Reads one row per tally,
    whatever the number of reports."""
    with transaction.atomic():
        report_store.index_reads()
        mark = (
            TallyWatermark.objects.select_for_update()
            .filter(survey_id=survey_id)
            .first()
        )
        tallies = {
            (t.question_id, t.spec_revision): ldp.SupportCounts.from_dict(t.stat)
            for t in Tally.objects.filter(question__survey_id=survey_id)
        }
        counts = stored_counts(survey_id=survey_id)
        # Before their first count (an upgrade), none: jobs read reports.
        joint = (
            cells.stored(survey_id=survey_id)
            if mark is None or mark.cells_counted
            else {}
        )
    if mark is None:
        return TallyInputs(0, None, tallies, counts, 0, joint)
    return TallyInputs(
        mark.last_report_id,
        mark.refreshed_at,
        tallies,
        counts,
        mark.responses,
        joint,
        mark.last_submission_id,
    )


def _position(snapshot: ResultSnapshot) -> tuple[int, int]:
    """How far a snapshot's release reaches: its report watermark, then its
    submission bound (a submission with no protected report moves only the
    latter); both only grow."""
    return snapshot.watermark, snapshot.last_submission_id


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


def _inputs_held_back(
    survey_id: int, current: ResultSnapshot | None, inputs: TallyInputs
) -> TallyInputs:
    """What a snapshot computed while a batch is held back holds.

    With a snapshot: the questions changed inside a batch, so the results
    follow the new questions, but from the reports the current snapshot
    already covers (recounted at its watermark), so an edit never moves them
    past a batch (editing after each response must not isolate it).  Without
    one: the first snapshot waits for a batch too, holding no reports (every
    question at n = 0)."""
    if current is None:
        return TallyInputs(0, None, {}, AnswerCounts(), 0, {})
    if current.watermark == inputs.watermark:
        return replace(
            inputs,
            responses=current.responses,
            last_submission_id=current.last_submission_id,
        )
    tallies, _, _ = count_reports(
        survey_id, end=current.watermark, batch_size=resolved_batch_size(None)
    )
    return TallyInputs(
        current.watermark,
        _document_time(current.document.get("refreshed_at")),
        tallies,
        counts_up_to(
            survey_id=survey_id, last_submission_id=current.last_submission_id
        ),
        current.responses,
        # The current snapshot's own: of exactly the same reports.
        current.cells,
        current.last_submission_id,
    )


def snapshot_refresh(*, survey_id: int, force: bool = False) -> SnapshotOutcome:
    """Compute the survey's results from its tallies and store them as its snapshot.

    Idempotent: a snapshot already at the tallies' watermark under the same
    questions is kept as it is (``force``, an operator's recount, computes it
    anew).  The release rule holds the snapshot's watermark back until at
    least k submissions are new (:func:`snapshot_batch_ready`), recount or
    not; a change to the questions recomputes it at the same watermark.
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
    inputs = _tally_inputs(survey_id)
    same_questions = (
        current is not None
        and current.definition == definition
        and document_readable(current.document)
    )
    if (
        not force
        and current is not None
        and same_questions
        and _position(current) >= (inputs.watermark, inputs.last_submission_id)
    ):
        return SnapshotOutcome(survey_id, False, current.watermark, current.version)
    # Submissions the tallies cover beyond the current snapshot's, counted by
    # the refresh (a withdrawal since may make it one short; never below 0).
    new = max(0, inputs.responses - (current.responses if current else 0))
    now = timezone.now()
    first_and_empty = current is None and new == 0
    if not first_and_empty and not snapshot_batch_ready(new_responses=new):
        if current is not None and same_questions and not force:
            return SnapshotOutcome(
                survey_id, False, current.watermark, current.version, new
            )
        # Recomputed (new questions, or an operator's recount) at the
        # released watermark: never a release of fewer than k.
        inputs = _inputs_held_back(survey_id, current, inputs)
    watermark, responses = inputs.watermark, inputs.responses
    position = (watermark, inputs.last_submission_id)
    results = selectors.results_from_tallies(
        survey=survey,
        questions=questions,
        tallies=inputs.tallies,
        refreshed_at=inputs.refreshed_at,
        # Item non-response and unprotected answers of the same submissions
        # as the tallies, from their own tallies.
        skipped=inputs.answers.skips(),
        plain_answers=inputs.answers.by_question(),
        skip_reasons=inputs.answers.skip_reasons(),
        responses=inputs.responses,
    )
    document = results_to_document(results)
    _snapshot_delay()
    with transaction.atomic():
        _lock_snapshot(survey_id)
        latest = selectors.latest_snapshot(survey_id=survey_id)
        if latest is not None and (
            _position(latest) > position
            or (
                not force
                and _position(latest) == position
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
            last_submission_id=inputs.last_submission_id,
            spec_revisions={str(q.pk): q.spec_revision for q in questions},
            definition=definition,
            document=document,
            computed_at=now,
            cells=inputs.cells,
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
    tallies, _, counted_cells = count_reports(
        survey_id,
        end=current.watermark,
        batch_size=resolved_batch_size(None),
        with_cells=True,
        last_submission_id=current.last_submission_id,
    )
    answers = counts_up_to(
        survey_id=survey_id, last_submission_id=current.last_submission_id
    )
    responses = selectors.responses_up_to(
        survey_id=survey_id, last_submission_id=current.last_submission_id
    )
    results = selectors.results_from_tallies(
        survey=survey,
        questions=questions,
        tallies=tallies,
        refreshed_at=_document_time(current.document.get("refreshed_at")),
        # Item non-response and unprotected answers of the same submissions.
        skipped=answers.skips(),
        plain_answers=answers.by_question(),
        skip_reasons=answers.skip_reasons(),
        responses=responses,
    )
    document = results_to_document(results)
    with transaction.atomic():
        _lock_snapshot(survey_id)
        latest = selectors.latest_snapshot(survey_id=survey_id)
        if latest is None or _position(latest) != _position(current):
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
            last_submission_id=current.last_submission_id,
            spec_revisions={str(q.pk): q.spec_revision for q in questions},
            definition=selectors.survey_definition(questions),
            document=document,
            computed_at=timezone.now(),
            cells=cells.snapshot_form(counted_cells),
        )
    return SnapshotOutcome(survey_id, True, current.watermark, version)
