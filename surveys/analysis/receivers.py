"""Receivers of other apps' signals, connected in ``AnalysisConfig.ready``."""

from __future__ import annotations

from surveys.analysis.tallies import services
from surveys.analysis.tasks import send_refresh, send_withdrawal_snapshot


def refresh_when_reports_commit(sender: type, *, survey_id: int, **kwargs) -> None:
    """A submission's reports committed: enqueue a (debounced) tally refresh."""
    send_refresh(survey_id)


def subtract_when_reports_withdrawing(
    sender: type, *, survey_id: int, report_ids: list[int], **kwargs
) -> None:
    """Reports are being withdrawn: take them out of the tallies (same
    transaction), with their submission (counted even with no report)."""
    submission_id = kwargs.get("submission_id")
    services.tallies_withdraw(
        survey_id=survey_id,
        report_ids=report_ids,
        submission_ids=None if submission_id is None else [submission_id],
    )


def recompute_when_reports_withdrawn(sender: type, *, survey_id: int, **kwargs) -> None:
    """A withdrawal committed: recompute the results snapshot without it."""
    send_withdrawal_snapshot(survey_id)
