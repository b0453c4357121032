"""Tallies of unprotected answers and skips, kept with the report tallies.

A snapshot shows, beside the estimates, what respondents answered to the
questions that are not protected and how many skipped each optional question,
for the same submissions as the estimates: those with a report at or below the
survey's tally watermark.  Counting those from the stored answers at every
snapshot read every answer of the survey (and checked each against the
reports), so a snapshot cost grew with n.  Here they are counts kept up to
date by the worker path that folds reports (``services.tallies_refresh``),
in the same transaction and under the same watermark lock:

* a batch of reports with ids in ``(start, end]`` *covers* the submissions
  among them that had no report at or below ``start``, and those with no
  protected report between them, by submission id order (one range of
  submission ids past the watermark's ``last_submission_id``:
  :func:`covered_between`);
* the unprotected answers and skips of the newly covered submissions are
  added to :class:`~surveys.analysis.models.PlainAnswerTally` and
  :class:`~surveys.analysis.models.SkipTally` (by how each question was left:
  declined, left blank, or unknown for markers stored before the two were
  told apart).  A question hidden by display logic stores nothing; results
  count it "not shown" from the covered submissions
  (``selectors.item_counts``).

So a batch reads its own submissions' answers and nothing else: the work is
proportional to the new submissions, and a snapshot reads one row per
(question, distinct answer) and per optional question, whatever n.  A
withdrawal subtracts the answers of the withdrawn submissions that were
covered; a recount (``tallies_recount``) recomputes them from the stored
answers (:func:`counts_up_to`, the one path that reads them all).

Invariant (tested against :func:`counts_up_to`): the tallies equal the counts
of the answers and skips of the survey's counted submissions with an id at or
below the watermark's ``last_submission_id``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from django.db.models import Count, Exists, OuterRef

from surveys.analysis.models import PlainAnswerTally, SkipTally
from surveys.analysis.results.answer_counts import AnswerCounts
from surveys.analysis.tallies import windows
from surveys.authoring.kinds import kinds_where
from surveys.authoring.models import Question
from surveys.collection.models import PlainAnswer, SkippedAnswer, Submission

# Submission ids per query (an IN list): bounded so a batch of 50,000 reports
# never sends one statement with tens of thousands of parameters.
CHUNK = 5_000


def _chunks(ids: list[int]) -> Iterable[list[int]]:
    for i in range(0, len(ids), CHUNK):
        yield ids[i : i + CHUNK]


# What a typed answer is tallied as: that it was answered, never its words
# (which stay in the answers themselves, deleted with a withdrawal, and would
# otherwise be copied into a tally row that outlives it).
ANSWERED = True


def free_text_questions(survey_id: int) -> set[int]:
    """The survey's open-text questions (their answers are tallied as
    ``ANSWERED``)."""
    return set(
        Question.objects.filter(
            survey_id=survey_id, kind__in=kinds_where(free_text=True)
        ).values_list("pk", flat=True)
    )


def covered_between(*, survey_id: int, after: int, up_to: int) -> list[int]:
    """The survey's counted submissions with an id in ``(after, up_to]``: those
    a window of the tallies covers first (the watermark's
    ``last_submission_id`` before and after it), with a protected report or
    none.  A survey's submissions and reports take their ids in the same
    order (each transaction that stores them holds the survey's row, the lock
    the horizon fence relies on, ``report_store``), so the submissions with
    a report in the window and none before are exactly those of the range
    past the previous bound.  One range of the (survey, id) index."""
    if up_to <= after:
        return []
    return list(
        windows.submissions_between(survey_id, after=after, up_to=up_to)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def counts_of(*, survey_id: int, submission_ids: list[int]) -> AnswerCounts:
    """The unprotected answers and skips of these submissions of the survey.

    Read by ranges of submission ids (each chunk's smallest to largest) on
    the (submission, question) indexes, and kept when the submission is one
    of these: a range is planned as an index scan whatever the statistics,
    while a list of ids, or a filter on the survey's questions, was planned
    as a scan of those questions' answers, in proportion to n."""
    typed = free_text_questions(survey_id)
    plain: Counter[tuple[int, str]] = Counter()
    skipped: Counter[tuple[int, str]] = Counter()
    for chunk in _chunks(sorted(submission_ids)):
        wanted = set(chunk)
        within = {
            "survey_id": survey_id,  # one shard where the table is distributed
            "submission_id__gte": chunk[0],
            "submission_id__lte": chunk[-1],
        }
        for submission_id, question_id, value in (
            PlainAnswer.objects.filter(**within)
            .order_by()
            .values_list("submission_id", "question_id", "value")
        ):
            if submission_id in wanted:
                value = ANSWERED if question_id in typed else value
                plain[(question_id, json.dumps(value, sort_keys=True))] += 1
        for submission_id, question_id, reason in (
            SkippedAnswer.objects.filter(**within)
            .order_by()
            .values_list("submission_id", "question_id", "reason")
        ):
            if submission_id in wanted:
                skipped[(question_id, reason)] += 1
    counts = AnswerCounts(skipped=skipped)
    for (question_id, text), count in plain.items():
        counts.add_plain(question_id, json.loads(text), count)
    return counts


def counts_up_to(*, survey_id: int, last_submission_id: int) -> AnswerCounts:
    """Recount from the stored answers: those of the survey's counted
    submissions with ``id <= last_submission_id`` (the tallies' or a
    snapshot's).  Reads every answer of the survey (recounts, and results at
    an earlier release than the tallies'), never a snapshot's steady path."""
    covered = Submission.objects.filter(
        pk=OuterRef("submission_id"),
        survey_id=survey_id,
        pk__lte=last_submission_id,
        is_test=False,
    )
    counts = AnswerCounts()
    typed = free_text_questions(survey_id)
    answers = PlainAnswer.objects.filter(question__survey_id=survey_id).filter(
        Exists(covered)
    )
    rows = (
        answers.exclude(question_id__in=typed)
        .values("question_id", "value")
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in rows:
        counts.add_plain(row["question_id"], row["value"], row["count"])
    answered = (
        answers.filter(question_id__in=typed)
        .values("question_id")
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in answered:
        counts.add_plain(row["question_id"], ANSWERED, row["count"])
    skips = (
        SkippedAnswer.objects.filter(question__survey_id=survey_id)
        .filter(Exists(covered))
        .values("question_id", "reason")
        .annotate(count=Count("id"))
        .order_by()
    )
    for row in skips:
        counts.skipped[(row["question_id"], row["reason"])] += row["count"]
    return counts


def add(*, survey_id: int, change: AnswerCounts) -> None:
    """Add ``change`` (negative counts subtract) to the survey's tallies.

    Call it holding the survey's watermark lock (``services``): every writer
    of these rows does, so read-modify-write is safe.
    """
    if change.plain:
        held = {
            (t.question_id, t.value_key): t
            for t in PlainAnswerTally.objects.filter(
                question_id__in={q for q, _ in change.plain}
            )
        }
        changed, new = [], []
        for (question_id, key), (value, count) in change.plain.items():
            tally = held.get((question_id, key))
            if tally is None:
                new.append(
                    PlainAnswerTally(
                        question_id=question_id, value_key=key, value=value, count=count
                    )
                )
            elif count:
                tally.count += count
                changed.append(tally)
        PlainAnswerTally.objects.bulk_update(changed, ["count"])
        PlainAnswerTally.objects.bulk_create(new)
    if change.skipped:
        skips = {
            t.question_id: t
            for t in SkipTally.objects.filter(
                question_id__in={q for q, _ in change.skipped}
            )
        }
        new_skips: dict[int, SkipTally] = {}
        changed_skips: dict[int, SkipTally] = {}
        for (question_id, reason), count in change.skipped.items():
            skip = skips.get(question_id)
            if skip is None:
                skip = new_skips.setdefault(
                    question_id, SkipTally(question_id=question_id)
                )
            elif count:
                changed_skips[question_id] = skip
            setattr(skip, reason, getattr(skip, reason) + count)
        SkipTally.objects.bulk_update(list(changed_skips.values()), SkipTally.REASONS)
        SkipTally.objects.bulk_create(new_skips.values())


def replace(*, survey_id: int, counts: AnswerCounts) -> None:
    """Replace the survey's tallies with ``counts`` (a recount), under the
    watermark lock."""
    PlainAnswerTally.objects.filter(question__survey_id=survey_id).delete()
    SkipTally.objects.filter(question__survey_id=survey_id).delete()
    add(survey_id=survey_id, change=counts)


def fold_covered(*, survey_id: int, after: int, up_to: int) -> list[int]:
    """Add the answers of the submissions a window covers first
    (:func:`covered_between`); return those submissions."""
    new = covered_between(survey_id=survey_id, after=after, up_to=up_to)
    if new:
        add(
            survey_id=survey_id,
            change=counts_of(survey_id=survey_id, submission_ids=new),
        )
    return new


def subtract_withdrawn(*, survey_id: int, covered_submission_ids: list[int]) -> None:
    """Take withdrawn submissions that were covered out of the tallies (before
    their answers are deleted, in the same transaction)."""
    if covered_submission_ids:
        taken = counts_of(survey_id=survey_id, submission_ids=covered_submission_ids)
        add(survey_id=survey_id, change=taken.negated())
