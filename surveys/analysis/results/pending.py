"""What arrived past a release: capped counts of reports and submissions
stored after the latest snapshot, read in bounded time whatever the backlog
(the dashboard's "held back" and the API's ``pending_responses``)."""

from __future__ import annotations

from django.db.models import QuerySet

from surveys.authoring.models import Question
from surveys.collection.models import Report, Submission

# Readers count what arrived after a snapshot up to this many, so a page costs
# the same however far behind the workers are ("more than 10,000").
PENDING_COUNT_CAP = 10_000


def pending_after(*, survey_id: int, watermark: int) -> tuple[int, int]:
    """(reports, submissions) stored past ``watermark``, each capped at
    PENDING_COUNT_CAP + 1, so the cost does not grow with a backlog.

    What arrived past a watermark is read question by question through the
    (question, id) index, at most the cap of reports (counted ones: not test
    mode) of each, in id order, and the capped sets are combined (``UNION
    ALL`` for the reports, ``UNION`` for their distinct submissions).
    Counting over the survey's reports as a whole let PostgreSQL's planner,
    which cannot tell a small survey from a large one by its question ids,
    walk every later report of every survey instead (seconds behind 10^7
    reports).  Each count is exact below the cap and at least the cap above
    it: a question with cap reports past the watermark has them from cap
    submissions (one report per question per submission).  Every branch names
    the survey, so only its partition is read.
    """
    cap = PENDING_COUNT_CAP + 1
    questions = list(
        Question.objects.filter(survey_id=survey_id).values_list("pk", flat=True)
    )
    if not questions:
        return 0, 0

    def later(question_id: int, column: str) -> QuerySet[Report]:
        return (
            Report.objects.filter(
                survey_id=survey_id, question_id=question_id, id__gt=watermark
            )
            .order_by("id")
            .values_list(column, flat=True)[:cap]
        )

    first, *rest = questions
    reports = later(first, "id").union(*(later(q, "id") for q in rest), all=True)
    submissions = later(first, "submission_id").union(
        *(later(q, "submission_id") for q in rest)
    )
    return min(reports.count(), cap), submissions.count()


def pending_submissions(*, survey_id: int, after: int) -> int:
    """Counted submissions stored past the submission bound ``after`` (with a
    protected report or none), capped at PENDING_COUNT_CAP + 1: one range of
    the (survey, id) index, whatever the backlog."""
    return (
        Submission.objects.filter(survey_id=survey_id, pk__gt=after, is_test=False)
        .order_by("pk")
        .values_list("pk", flat=True)[: PENDING_COUNT_CAP + 1]
        .count()
    )
