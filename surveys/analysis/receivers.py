"""Receivers of other apps' signals, connected in ``AnalysisConfig.ready``."""

from __future__ import annotations

from surveys.analysis.tasks import send_refresh


def refresh_when_reports_commit(sender: type, *, survey_id: int, **kwargs) -> None:
    """A submission's reports committed: enqueue a (debounced) tally refresh."""
    send_refresh(survey_id)
