"""The release rule: when accepted submissions may be shown, written once here.

Every figure a researcher can read about a survey's respondents (the
dashboard and its live poll, the estimates files, the raw and per-respondent
exports in CSV, JSON, SPSS, Stata and R, the API, the survey lists' response
counts and the invitation pages' "used" counts) is read at one *released
watermark*: the report id of the survey's latest results snapshot
(``ResultSnapshot.watermark``), and its submission bound
(``ResultSnapshot.last_submission_id``).  A submission is *released* once
its id is at or below that bound (with a protected report at or below the
watermark, or with none: a survey's submissions and reports take their ids
in the same order).  Nothing on the submission records it: the bound is
the one mark, so a release writes one row whatever its size (a per-row
flag took a minute to write after a backlog of a million), and every
surface reads that bound, so they all show the same n at every moment.

The rule, with k = ``SNAPSHOT_MIN_NEW_SUBMISSIONS`` (10 by default):

* **Every release holds at least k new submissions**, those without a
  protected report included (they are counted by the tallies as the
  submissions between them are).  Two successive
  releases then differ by at least k respondents, so comparing them (an
  estimate before and after, a row count, an invitation newly counted as
  used) never singles one out.  No waiting period lets a smaller batch out:
  releasing a late respondent alone after a day is exactly the isolation the
  batch exists to prevent.  An operator's recount recomputes the results at
  the released watermark and moves it only by a full batch, like any release.

* **At close, the last partial batch is held, not merged.**  Merging it into
  the previous release would replace results researchers have already read
  with results that differ from them by fewer than k submissions: the
  difference is those respondents, which is what the rule forbids.  So the
  held submissions stay stored (nothing accepted is lost, and withdrawal
  still works for them), every surface counts them as held back and says
  why, and they are released if the survey is reopened and enough arrive to
  make a batch of k.

k = 1 releases every submission on its own (the test settings do, to keep
tests short); keep it above 1 with real respondents.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Q, QuerySet

from surveys.analysis.models import ResultSnapshot
from surveys.collection.models import Report


def min_batch() -> int:
    """k: the fewest new submissions a release may hold (at least 1)."""
    return max(1, int(settings.SNAPSHOT_MIN_NEW_SUBMISSIONS))


def snapshot_batch_ready(*, new_responses: int) -> bool:
    """Whether a release may add ``new_responses`` submissions: at least k."""
    return new_responses > 0 and new_responses >= min_batch()


def still_needed(held: int) -> int:
    """How many more submissions the ``held`` ones wait for before a release."""
    return max(0, min_batch() - held)


def released_watermark(*, survey_id: int) -> int:
    """The released watermark: the report id of the survey's latest results
    snapshot (0: nothing released yet).  Read once per export or page, so
    everything it shows stops at the same release."""
    mark = (
        ResultSnapshot.objects.filter(survey_id=survey_id)
        .values_list("watermark", flat=True)
        .first()
    )
    return mark or 0


def released_reports(*, survey_id: int, watermark: int) -> QuerySet[Report]:
    """The survey's counted reports in the release at ``watermark``: exactly
    those its results' tallies hold."""
    return Report.objects.filter(survey_id=survey_id, id__lte=watermark)


def released_bounds(*, survey_id: int) -> tuple[int, int]:
    """The latest release's watermark (:func:`released_watermark`) and its
    submission bound, read together (one row): every counted submission of
    the survey with an id at or below the bound is released (with a
    protected report or none), and none above ((0, 0): nothing released
    yet).  Read once at the start of an export."""
    found = (
        ResultSnapshot.objects.filter(survey_id=survey_id)
        .values_list("watermark", "last_submission_id")
        .first()
    )
    return found or (0, 0)


def in_release(
    *,
    survey_id: int,
    last_submission_id: int,
    field: str = "submission",
    with_test: bool,
) -> Q:
    """A filter keeping the survey's counted submissions in the release whose
    submission bound is ``last_submission_id`` (:func:`released_bounds`)
    and, ``with_test``, the owner's test submissions too (never in any
    result, so they need no release).  ``field`` names the submission on a
    related row ("": the rows are submissions).

    A submission with no protected report (every protected question declined
    or hidden, or a survey of unprotected questions only) is released like
    any other, with the batch whose bound covers it: it counts in the
    release's n, and the batch of k it waits for counts it."""
    prefix = f"{field}__" if field else ""
    released = Q(
        **{
            f"{prefix}survey_id": survey_id,
            f"{prefix}pk__lte": last_submission_id,
            f"{prefix}is_test": False,
        }
    )
    if with_test:
        return released | Q(
            **{f"{prefix}survey_id": survey_id, f"{prefix}is_test": True}
        )
    return released
