"""What pages, exports and the API read: the latest snapshot, nudged when stale.

Reading costs a fixed number of queries (``selectors.latest_results``).  A
reader that finds no snapshot, or one behind the tallies or the questions,
queues a computation (``tasks.send_snapshot``, debounced); with no broker the
computation runs in this process before the page is answered, the same code
a worker runs.
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from surveys.analysis import selectors, tasks
from surveys.analysis.results import SurveyResults
from surveys.authoring import access
from surveys.authoring.models import Survey
from surveys.celery import app
from surveys.prepared_queries import PreparedQuery


def latest_results(survey: Survey) -> SurveyResults | None:
    """The survey's latest stored results (None: none computed yet, one queued)."""
    return _nudged(survey, selectors.latest_results(survey=survey))


def _viewable_with_marks(
    *, user_id: int, survey_id: int, watermark: int
) -> QuerySet[Survey]:
    """Survey ``survey_id`` if user ``user_id`` may view it, with the marks
    (:func:`selectors.marks_annotations`) past ``watermark``."""
    return (
        access.surveys_of_user_id(user_id=user_id, need=access.VIEW)
        .filter(pk=survey_id)
        .annotate(
            **selectors.marks_annotations(survey_id=survey_id, watermark=watermark)
        )
    )


def _viewable(*, user_id: int, survey_id: int) -> QuerySet[Survey]:
    """Survey ``survey_id`` if user ``user_id`` may view it."""
    return access.surveys_of_user_id(user_id=user_id, need=access.VIEW).filter(
        pk=survey_id
    )


# The reader's survey is looked up with the same SQL on every read: compiled
# once per process (compiling it cost three times as much as running it).
VIEWABLE_WITH_MARKS = PreparedQuery(
    _viewable_with_marks, user_id=int, survey_id=int, watermark=int
)
VIEWABLE = PreparedQuery(_viewable, user_id=int, survey_id=int)


def viewable_survey_with_results(
    *, user, pk: int
) -> tuple[Survey, SurveyResults | None]:
    """Survey ``pk`` if ``user`` may view it (owner, editor or viewer; 404
    otherwise) and its latest results, as :func:`latest_results`.

    The survey is loaded with the reader's access, the tally watermark and the
    capped counts of what arrived since its snapshot in one query, whose SQL
    is compiled once per process, so that a read costs that query and the
    snapshot head's cache round trip.  The head is read first (it says which
    watermark to count from) and shown to no one unless the survey is found.
    Access is read from the database on every call, so a removed co-researcher
    loses it at once.
    """
    if not getattr(user, "is_authenticated", False):
        raise Http404("No survey matches the given query.")
    head = selectors.snapshot_head(survey_id=pk)
    if head is not None:
        found = VIEWABLE_WITH_MARKS.raw(
            user_id=user.pk, survey_id=pk, watermark=head.watermark
        )
    else:
        found = VIEWABLE.raw(user_id=user.pk, survey_id=pk)
    rows = list(found)
    if not rows:
        raise Http404("No survey matches the given query.")
    survey = rows[0]
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
