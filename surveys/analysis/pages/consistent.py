"""The survey's choice of consistent estimate: what each method is, and storing it.

The maths is ldp's (``Estimate.consistent(method)``, docs/maths.md, section
6.2); this module words the two methods for researchers and stores the
survey's choice (``ResultsSettings``).  Choosing is post-processing of the
same reports: it costs respondents no privacy.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from surveys.analysis import tasks
from surveys.analysis.models import ResultsSettings
from surveys.analysis.results import selectors
from surveys.authoring import access
from surveys.authoring.models import Survey

PROJECTION = ResultsSettings.Consistent.PROJECTION.value
MLE = ResultsSettings.Consistent.MLE.value

# What each method does, in words for the page (the choices' labels are
# its name).
EXPLANATIONS = {
    PROJECTION: _(
        "Moves the unbiased estimates as little as possible (in squared "
        "distance) until none is negative and they add up to 100%. Fast; the "
        "default."
    ),
    MLE: _(
        "The distribution of true answers under which the randomized reports "
        "actually received are most likely, given how the device randomized "
        "them (found by the EM algorithm). Uses what the randomization is, "
        "not just the unbiased estimates."
    ),
}


def method_label(method: str | None) -> str:
    """The method's name for researchers ("" for None: no consistent estimate)."""
    if method is None:
        return ""
    try:
        return str(ResultsSettings.Consistent(method).label)
    except ValueError:
        return method


def consistent_method_set(*, survey: Survey, user: Any, method: str) -> bool:
    """Store the survey's consistent-estimate method; True when it changed.

    Owners and editors only (``access.EDIT``): the method changes the results
    every reader sees.  A change makes the snapshot stale (the method is part
    of the results definition, ``selectors.survey_definition``), so a worker
    recomputes it once the change commits.

    Raises
    ------
    PermissionDenied
        For a viewer or a stranger.
    ValueError
        For a method that is not one of ``ResultsSettings.Consistent``.
    """
    access.require(survey, user, access.EDIT)
    allowed = ResultsSettings.Consistent.values
    if method not in allowed:
        raise ValueError(f"method is {method!r}; allowed: {', '.join(allowed)}")
    with transaction.atomic():
        if selectors.consistent_method(survey_id=survey.pk) == method:
            return False
        ResultsSettings.objects.update_or_create(
            survey=survey, defaults={"consistent_method": method}
        )
        transaction.on_commit(lambda: tasks.send_snapshot(survey.pk))
    return True
