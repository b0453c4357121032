"""Celery tasks of the authoring app (run by beat)."""

from __future__ import annotations

from celery import shared_task

from surveys.authoring import lifecycle_services


@shared_task(ignore_result=True)
def notify_survey_transitions() -> dict[str, int]:
    """Email owners whose surveys opened or closed since the last run.

    Only notifications: whether a survey is open is decided at request time
    (``surveys.authoring.lifecycle``), so a missed run delays an email, never
    an opening or a closing.
    """
    return lifecycle_services.notify_transitions()
