"""What pages, exports and the API read: the latest snapshot, nudged when stale.

Reading costs a fixed number of queries (``selectors.latest_results``).  A
reader that finds no snapshot, or one behind the tallies or the questions,
queues a computation (``tasks.send_snapshot``, debounced); with no broker the
computation runs in this process before the page is answered, the same code
a worker runs.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from surveys.analysis import selectors, tasks
from surveys.analysis.results import SurveyResults
from surveys.authoring.models import Survey
from surveys.celery import app


def latest_results(survey: Survey) -> SurveyResults | None:
    """The survey's latest stored results (None: none computed yet, one queued)."""
    return _nudged(survey, selectors.latest_results(survey=survey))


def survey_with_results(
    surveys: QuerySet[Survey], pk: int
) -> tuple[Survey, SurveyResults | None]:
    """Survey ``pk`` among ``surveys`` (404 if it is not there: the reader's
    access) and its latest results, as :func:`latest_results`.

    The survey is loaded with the tally watermark and the capped counts of
    what arrived since its snapshot in the same query, so that a read costs
    that query and the snapshot head's cache round trip.  The head is read
    first (it says which watermark to count from) and shown to no one unless
    the survey is found.
    """
    head = selectors.snapshot_head(survey_id=pk)
    if head is not None:
        surveys = surveys.annotate(
            **selectors.marks_annotations(survey_id=pk, watermark=head.watermark)
        )
    survey = get_object_or_404(surveys, pk=pk)
    state = selectors.latest_results(
        survey=survey, head=head, marks=selectors.Marks.of(survey)
    )
    return survey, _nudged(survey, state)


def _nudged(survey: Survey, state: selectors.SnapshotState) -> SurveyResults | None:
    """Queue a computation if ``state`` is stale (run it here with no broker)."""
    if state.stale:
        tasks.send_snapshot(survey.pk)
        if app.conf.task_always_eager:
            state = selectors.latest_results(survey=survey)
    return state.results
