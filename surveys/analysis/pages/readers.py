"""What every researcher's page starts from: the survey the reader may view (404
otherwise), its latest results, and the answer while none are computed yet.
"""

from __future__ import annotations

from django.http import (
    HttpResponse,
)

from surveys.analysis.pages.job_views import computing
from surveys.analysis.reading import viewable_survey_with_results
from surveys.authoring import access


def survey_for(request, pk: int):
    """The survey the reader may view (404 otherwise)."""
    return access.survey_get_for(user=request.user, pk=pk, need=access.VIEW)


def survey_with_results(request, pk: int):
    """The survey the reader may view (404 otherwise) and its latest results."""
    return viewable_survey_with_results(user=request.user, pk=pk)


def results_computing() -> HttpResponse:
    """While no snapshot exists yet (a worker is computing the first), exports
    answer 503 with ``Retry-After`` and the dashboard says so."""
    return computing("The results")
