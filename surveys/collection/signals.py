"""Signals the collection app sends; other apps connect to them in their ready().

Collection never imports the apps that react to what it stores (analysis sits
above it), so it announces instead.
"""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.dispatch import Signal

from surveys.collection.models import Submission

# Sent once the transaction that stored a submission's reports has committed.
# Keyword argument: ``survey_id``.  Sent robustly: a failing receiver is logged
# and never fails the submission, which is already stored.
reports_committed = Signal()


def announce_reports_on_commit(*, survey_id: int) -> None:
    """Send ``reports_committed`` for ``survey_id`` after the current commit."""
    transaction.on_commit(
        partial(reports_committed.send_robust, sender=Submission, survey_id=survey_id),
        robust=True,
    )


# Sent inside the transaction that deletes a withdrawn submission, before its
# reports are deleted, so a receiver can correct what it derived from them in
# the same transaction (an exception rolls the withdrawal back: nothing
# changes).  Keyword arguments: ``survey_id``, ``report_ids``.
reports_withdrawing = Signal()
# Sent after that transaction committed.  Keyword argument: ``survey_id``.
reports_withdrawn = Signal()


def announce_withdrawal_on_commit(*, survey_id: int) -> None:
    """Send ``reports_withdrawn`` for ``survey_id`` after the current commit."""
    transaction.on_commit(
        partial(reports_withdrawn.send_robust, sender=Submission, survey_id=survey_id),
        robust=True,
    )


def delete_submissions_of_survey(*, survey_id: int, **_: object) -> None:
    """Receiver of authoring's ``survey_deleting``: the survey's submissions,
    reports, unprotected answers, skips and link values, reports by survey
    (one partition)."""
    from surveys.collection.services import submissions_delete

    submissions_delete(
        survey_id=survey_id,
        submissions=Submission.objects.filter(survey_id=survey_id),
    )
