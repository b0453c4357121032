"""Celery tasks of invitations: email mailings and address retention.

Their names stay those they had when they lived in ``surveys.collection.tasks``,
so that tasks already queued under those names still run.
"""

from __future__ import annotations

import time

from celery import shared_task
from django.conf import settings

from surveys.invitations import mailings, recipient_list

# With no broker (tasks in-process) a temporary failure is retried at once, in
# the request, pausing at most this long between attempts.
IN_PROCESS_PAUSE_MAX = 2.0


def _pause(attempt: int) -> float:
    return min(3600.0, settings.EMAIL_RETRY_SECONDS * 2.0**attempt)


@shared_task(
    name="surveys.collection.tasks.send_mailing",
    bind=True,
    acks_late=True,
    ignore_result=True,
    max_retries=None,
)
def send_mailing(
    self,
    survey_id: int,
    kind: str,
    base_url: str,
    subject: str,
    body: str,
    language: str = mailings.EVERY_LANGUAGE,
) -> dict[str, int]:
    """Send a survey's invitations or reminders (``mailings.mailing_send``).

    Safe to rerun: each recipient is claimed before its email goes out, so a
    redelivered task never sends one twice.  A temporary failure retries with
    exponential backoff from ``EMAIL_RETRY_SECONDS``, ``EMAIL_RETRY_MAX``
    times; then ``mailings.TemporaryFailure`` is raised.
    """

    def run() -> dict[str, int]:
        result = mailings.mailing_send(
            survey_id=survey_id,
            kind=kind,
            base_url=base_url,
            subject=subject,
            body=body,
            language=language,
        )
        return {"sent": result.sent, "refused": result.refused}

    if self.request.is_eager:
        sent = {"sent": 0, "refused": 0}
        for attempt in range(settings.EMAIL_RETRY_MAX + 1):
            try:
                result = run()
            except mailings.TemporaryFailure as failure:
                sent["sent"] += failure.done.sent
                sent["refused"] += failure.done.refused
                if attempt == settings.EMAIL_RETRY_MAX:
                    raise
                time.sleep(min(IN_PROCESS_PAUSE_MAX, _pause(attempt)))
                continue
            return {k: sent[k] + result[k] for k in sent}
        raise AssertionError("unreachable")  # pragma: no cover
    try:
        return run()
    except mailings.TemporaryFailure as error:
        if self.request.retries >= settings.EMAIL_RETRY_MAX:
            raise
        raise self.retry(exc=error, countdown=_pause(self.request.retries)) from error


@shared_task(
    name="surveys.collection.tasks.purge_recipient_addresses", ignore_result=True
)
def purge_recipient_addresses() -> int:
    """Empty addresses of surveys closed for ``RECIPIENT_RETENTION_DAYS``."""
    return recipient_list.purge_addresses()
