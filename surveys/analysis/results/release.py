"""The release rule: when accepted submissions may be shown, written once here.

Every figure a researcher can read about a survey's respondents (the
dashboard and its live poll, the estimates files, the raw and per-respondent
exports in CSV, JSON, SPSS, Stata and R, the API, the survey lists' response
counts and the invitation pages' "used" counts) is read at one *released
watermark*: the report id of the survey's latest results snapshot
(``ResultSnapshot.watermark``).  A submission is *released* once it has a
report at or below it; the snapshot's swap marks it so
(``Submission.released``) in the same transaction, and every surface reads
that mark, so they all show the same n at every moment.

The rule, with k = ``SNAPSHOT_MIN_NEW_SUBMISSIONS`` (10 by default):

* **Every release holds at least k new submissions.**  Two successive
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


def released_submission_ids(*, survey_id: int, watermark: int) -> QuerySet[Report]:
    """Ids of the counted submissions in the release at ``watermark`` (those
    with a report at or below it: the results' n), as a subquery."""
    return released_reports(survey_id=survey_id, watermark=watermark).values(
        "submission_id"
    )


def in_release(
    *, survey_id: int, watermark: int, field: str = "submission", with_test: bool
) -> Q:
    """A filter keeping the counted submissions in the release at
    ``watermark`` and, ``with_test``, the owner's test submissions too (never
    in any result, so they need no release).  ``field`` names the submission
    on a related row ("": the rows are submissions).

    Held back: a submission whose counted reports are all past the
    watermark.  A submission with no protected report (every protected
    question declined or hidden, or a survey of unprotected questions only)
    is in no result's n and is kept, as before this rule: holding it back
    would hold a survey without protected questions for ever."""
    prefix = f"{field}__" if field else ""
    past = Report.objects.filter(survey_id=survey_id, id__gt=watermark)
    released = Q(
        **{
            f"{prefix}pk__in": released_submission_ids(
                survey_id=survey_id, watermark=watermark
            )
        }
    ) | ~Q(**{f"{prefix}pk__in": past.values("submission_id")})
    if with_test:
        return released | Q(**{f"{prefix}is_test": True})
    return released & Q(**{f"{prefix}is_test": False})
