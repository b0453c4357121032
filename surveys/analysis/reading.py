"""What pages, exports and the API read: the latest snapshot, nudged when stale.

Reading costs a fixed number of queries (``selectors.latest_results``).  A
reader that finds no snapshot, or one behind the tallies or the questions,
queues a computation (``tasks.send_snapshot``, debounced); with no broker the
computation runs in this process before the page is answered, the same code
a worker runs.
"""

from __future__ import annotations

from surveys.analysis import replica, tasks
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import SurveyResults
from surveys.authoring import access
from surveys.authoring.models import Survey
from surveys.celery import app


def latest_results(survey: Survey) -> SurveyResults | None:
    """The survey's latest stored results (None: none computed yet, one queued).

    Read from the replica when it holds the released snapshot
    (``replica.released``); a computation it queues runs on the primary.
    """
    with replica.released(survey.pk):
        state = selectors.latest_results(survey=survey)
    if state.stale:
        tasks.send_snapshot(survey.pk)
        if app.conf.task_always_eager:
            state = selectors.latest_results(survey=survey)
    return state.results


def viewable_survey_with_results(
    *, user, pk: int
) -> tuple[Survey, SurveyResults | None]:
    """Survey ``pk`` if ``user`` may view it (owner, editor or viewer; 404
    otherwise) and its latest results, as :func:`latest_results`.  Access is
    read from the database on every call, so a removed co-researcher loses it
    at once."""
    survey = access.survey_get_for(user=user, pk=pk, need=access.VIEW)
    return survey, latest_results(survey)
