"""Receivers of other apps' signals, connected in ``AnalysisConfig.ready``."""

from __future__ import annotations

from surveys.analysis import services
from surveys.analysis.snapshot_heads import forget_head
from surveys.analysis.tasks import send_refresh, send_withdrawal_snapshot


def refresh_when_reports_commit(sender: type, *, survey_id: int, **kwargs) -> None:
    """A submission's reports committed: enqueue a (debounced) tally refresh."""
    send_refresh(survey_id)


def subtract_when_reports_withdrawing(
    sender: type, *, survey_id: int, report_ids: list[int], **kwargs
) -> None:
    """Reports are being withdrawn: take them out of the tallies (same transaction)."""
    services.tallies_withdraw(survey_id=survey_id, report_ids=report_ids)


def recompute_when_reports_withdrawn(sender: type, *, survey_id: int, **kwargs) -> None:
    """A withdrawal committed: recompute the results snapshot without it."""
    send_withdrawal_snapshot(survey_id)


def forget_head_of_survey(sender: type, *, instance, **kwargs) -> None:
    """A survey was saved or deleted: its cached snapshot head is out of date."""
    forget_head(instance.pk)


def forget_head_of_question(sender: type, *, instance, **kwargs) -> None:
    """A question (or a snapshot, or the survey's results settings) was saved or
    deleted: the same, for its survey."""
    forget_head(instance.survey_id)


def forget_head_of_bins(sender: type, *, instance, **kwargs) -> None:
    """A question's bins were saved or deleted: the same, for its survey."""
    from surveys.authoring.models import Question

    survey_id = (
        Question.objects.filter(pk=instance.question_id)
        .values_list("survey_id", flat=True)
        .first()
    )
    if survey_id is not None:  # else the question's own deletion forgets it
        forget_head(survey_id)


def forget_head_when_reordered(sender: type, *, survey_id: int, **kwargs) -> None:
    """Questions were renumbered in bulk: the survey's snapshot head is out of date."""
    forget_head(survey_id)
