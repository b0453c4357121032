"""Keyset windows over a survey's reports: at most a batch each, found
without reading them where the survey's reports are dense among the ids.

A fold or a count walks the survey's reports from a watermark in windows
``(start, end]``.  Ids are unique, so ``(start, start + size]`` holds at most
``size`` reports: that end needs no read (:func:`next_end`).  Where the
survey's reports are sparse among the ids (other surveys' reports between
them), that window would hold few, so the end is found from the reports
instead (:func:`window_end`), reading the window's index entries once more.

The window query itself, a survey's counted rows with an id in
``(start, end]`` (one range of its partition or of its (survey, id) index),
is written once here, for reports (:func:`reports_between`) and for the
submissions a window covers (:func:`submissions_between`).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from surveys.collection.models import Report, Submission

# A window of ``size`` ids is taken unprobed while the survey's reports held
# at least one in this many of the previous window's ids.
DENSE_SHARE = 8

Row = tuple[int, int, int, Any, Any]  # submission, question, revision, value, bits


def reports_between(survey_id: int, *, start: int, end: int) -> QuerySet[Report]:
    """The survey's counted reports with an id in ``(start, end]``: one range
    of its partition (every report key leads with the survey)."""
    return Report.objects.filter(survey_id=survey_id, id__gt=start, id__lte=end)


def submissions_between(
    survey_id: int, *, after: int, up_to: int
) -> QuerySet[Submission]:
    """The survey's counted submissions with an id in ``(after, up_to]``:
    those a window of the tallies covers first when ``after`` and ``up_to``
    are the largest submission ids covered before and after it (with a
    protected report or none).  One range of the (survey, id) index."""
    return Submission.objects.filter(
        survey_id=survey_id, pk__gt=after, pk__lte=up_to, is_test=False
    )


def window_end(
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
            reports_between(survey_id, start=start, end=end)
            .filter(
                # A range, not "=": ordered by (question, id), which only the
                # (question, id) index gives (with "=" the planner drops the
                # question from the order and may walk the primary key).
                question_id__gte=question_id,
                question_id__lte=question_id,
            )
            .order_by("question_id", "id")
            .values_list("id", flat=True)[per_question - 1 : per_question]
        )
        if kth:
            end = kth[0]
    return end


def next_end(
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
    end found by :func:`window_end`, which reads the window's index entries
    once more, so windows stay near a batch instead of many small ones."""
    if horizon - start <= size or dense:
        return min(horizon, start + size)
    return window_end(survey_id, question_ids, start=start, horizon=horizon, size=size)


def is_dense(reports: int, *, start: int, end: int) -> bool:
    return DENSE_SHARE * reports >= end - start


def window_rows(
    survey_id: int, question_ids: list[int], *, start: int, end: int
) -> list[Row]:
    """(submission, question, revision, value, bits) of the survey's counted
    reports with ids in ``(start, end]``: one range of its partition."""
    if end <= start:
        return []
    return list(
        reports_between(survey_id, start=start, end=end)
        .filter(question_id__in=question_ids)
        .order_by()
        .values_list("submission_id", "question_id", "spec_revision", "value", "bits")
    )
