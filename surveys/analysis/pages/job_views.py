"""What the researchers' job pages share: sending a job, and showing where it is.

Cross-tabs, breakdowns, simulated pilots, regressions, weighted estimates and
export files are background jobs (``AnalysisJob``, run by ``jobs.job_run`` on
a worker).  A page that asks for one sends it (again, if its first sending was
lost), then shows its progress, its result, or why it failed; a download asked
for before its job is done gets 503 with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.http import HttpResponse, HttpResponseBadRequest
from django.utils import timezone

from surveys.analysis import tasks
from surveys.analysis.models import AnalysisJob

# A queued job older than this is sent again (its first sending may have been
# lost while the broker was down).
JOB_RESEND_SECONDS = 30
# What a 503 asks the client to wait before trying again.
COMPUTING_RETRY_SECONDS = 5


def job_lost(job: AnalysisJob) -> bool:
    """Whether the job is still queued ``JOB_RESEND_SECONDS`` after it was made."""
    return job.status == AnalysisJob.Status.QUEUED and (
        job.created_at < timezone.now() - timedelta(seconds=JOB_RESEND_SECONDS)
    )


def job_sent(job: AnalysisJob, created: bool, *, reread: bool = True) -> AnalysisJob:
    """Send a new job (or one whose sending was lost) to a worker.

    ``reread``: read the job again once sent (with no broker it has run by
    now, so the page can show its result at once).
    """
    if created or job_lost(job):
        tasks.send_analysis_job(job.pk)
        if reread:
            job.refresh_from_db()
    return job


def job_context(
    context: dict[str, Any],
    job: AnalysisJob,
    prefix: str,
    done: Callable[[AnalysisJob], dict[str, Any]] | None = None,
) -> None:
    """Put where the job is into a page's context, under ``prefix``.

    Done: ``done(job)`` (by default ``{prefix: job.result}``); failed:
    ``<prefix>_error``, the reason in the reader's language; otherwise
    ``<prefix>_job``, for the progress bar.
    """
    if job.status == AnalysisJob.Status.DONE:
        context.update(done(job) if done is not None else {prefix: job.result})
    elif job.status == AnalysisJob.Status.FAILED:
        context[f"{prefix}_error"] = job.failure_shown
    else:
        context[f"{prefix}_job"] = job


def computing(what: str) -> HttpResponse:
    """503 with ``Retry-After``: ``what`` ("The results") is being computed."""
    response = HttpResponse(
        f"{what} {'are' if what.endswith('s') else 'is'} being computed; "
        "try again in a few seconds.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(COMPUTING_RETRY_SECONDS)
    return response


def refused(message: str) -> HttpResponse:
    """400 with the reason, as plain text."""
    return HttpResponseBadRequest(
        message + "\n", content_type="text/plain; charset=utf-8"
    )


def finished(job: AnalysisJob) -> HttpResponse | None:
    """None when the job is done; else the answer to send instead (400 with
    the reason it failed, or 503 while it is being computed)."""
    if job.status == AnalysisJob.Status.FAILED:
        return refused(job.error)
    if job.status != AnalysisJob.Status.DONE:
        return computing("The analysis")
    return None
