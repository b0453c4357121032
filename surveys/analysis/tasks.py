"""Celery tasks of the analysis app.

Tasks take ids, call one service and are safe to run twice (``acks_late``: a
task whose worker died is delivered again).  Enqueueing never fails a
submission: if the broker is down the error is logged and the periodic
``reconcile_tallies`` catches up.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from surveys.analysis.jobs import running as jobs
from surveys.analysis.results import selectors
from surveys.analysis.tallies import services, snapshots
from surveys.celery import app

logger = logging.getLogger(__name__)

# A burst of submissions to one survey enqueues one refresh per window: the
# first submission enqueues it to run after the window; later ones within the
# window find the marker and rely on that refresh (it starts after they
# committed).  Correctness never depends on this: any refresh folds
# everything up to its horizon, and reconciliation catches what is missed.
DEBOUNCE_SECONDS = 2
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
# A submission waits for its refresh to be published (after its commit, inside
# the request), so the publishing connection gets socket timeouts of its own:
# without them a broker that accepts connections but never answers (paused,
# overloaded, half-open) holds the request until gunicorn kills the worker.
PUBLISH_TIMEOUT_SECONDS = 0.5


@shared_task
def health_check() -> dict[str, str]:
    """Prove a worker is alive and can reach the database; used by operators."""
    connection.ensure_connection()
    return {
        "worker": socket.gethostname(),
        "database": "ok" if connection.is_usable() else "unexpected",
    }


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def refresh_survey_tallies(survey_id: int) -> dict[str, Any]:
    """Fold a survey's new reports into its tallies, then queue its snapshot."""
    outcome = services.tallies_refresh(survey_id=survey_id)
    if outcome.folded:
        send_snapshot(survey_id)
    return {
        "survey_id": outcome.survey_id,
        "folded": outcome.folded,
        "watermark": outcome.watermark,
        "deferred": outcome.deferred,
    }


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def compute_survey_snapshot(survey_id: int, force: bool = False) -> dict[str, Any]:
    """Compute a survey's results from its tallies and store the snapshot.

    Safe to run twice or after a killed run (``snapshots.snapshot_refresh``).
    """
    outcome = snapshots.snapshot_refresh(survey_id=survey_id, force=force)
    return {
        "survey_id": outcome.survey_id,
        "advanced": outcome.advanced,
        "watermark": outcome.watermark,
        "version": outcome.version,
        "waiting": outcome.waiting,
    }


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def reconcile_tallies() -> list[int]:
    """Refresh every survey with reports past its watermark, then the snapshots
    behind their tallies, and warn when results lag far behind (periodic)."""
    refreshed = []
    for survey_id in selectors.surveys_with_pending_reports():
        services.tallies_refresh(survey_id=survey_id)
        refreshed.append(survey_id)
    for survey_id in selectors.snapshots_behind():
        snapshots.snapshot_refresh(survey_id=survey_id)
    log_lag()
    return refreshed


def log_lag() -> dict[str, int]:
    """Log a warning when stored reports are far from the results; return the lag."""
    lag = selectors.lag()
    if lag["reports_not_in_results"] > settings.SNAPSHOT_LAG_WARNING_REPORTS:
        logger.warning(
            "results lag behind stored reports: %s reports not tallied, "
            "%s reports not in the results",
            lag["reports_untallied"],
            lag["reports_not_in_results"],
        )
    return lag


def _debounce_key(survey_id: int) -> str:
    return f"analysis:refresh-queued:{survey_id}"


def send_refresh(survey_id: int) -> bool:
    """Enqueue a (debounced) refresh now; log and return False on any error."""
    key = _debounce_key(survey_id)
    return _send(refresh_survey_tallies.name, survey_id, key, "a tally refresh")


def send_snapshot(survey_id: int) -> bool:
    """Enqueue a (debounced) snapshot computation; log and return False on error.

    With no broker (``CELERY_TASK_ALWAYS_EAGER``) it runs here and now.
    """
    key = f"analysis:snapshot-queued:{survey_id}"
    return _send(compute_survey_snapshot.name, survey_id, key, "a results snapshot")


def _send(name: str, survey_id: int, key: str, what: str) -> bool:
    # The project's app, not whichever Celery app was created last.
    task = app.tasks[name]
    try:
        if app.conf.task_always_eager:
            task.delay(survey_id)
            return True
        if not cache.add(key, 1, timeout=DEBOUNCE_SECONDS):
            return True  # one is already queued for after this commit
        with app.connection_for_write(
            transport_options={
                "socket_timeout": PUBLISH_TIMEOUT_SECONDS,
                "socket_connect_timeout": PUBLISH_TIMEOUT_SECONDS,
            }
        ) as connection:
            task.apply_async(
                (survey_id,),
                countdown=DEBOUNCE_SECONDS,
                retry_policy=PUBLISH_RETRY,
                connection=connection,
            )
    except Exception:
        # What is stored stays stored; reconciliation catches up.
        logger.warning(
            "could not enqueue %s for survey %s", what, survey_id, exc_info=True
        )
        with contextlib.suppress(Exception):  # the cache may be down too
            cache.delete(key)
        return False
    return True


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def recompute_snapshot_after_withdrawal(survey_id: int) -> dict[str, Any]:
    """Recompute the survey's snapshot over its reports minus withdrawn ones."""
    outcome = snapshots.snapshot_after_withdrawal(survey_id=survey_id)
    return {"survey_id": outcome.survey_id, "version": outcome.version}


def send_withdrawal_snapshot(survey_id: int) -> bool:
    """Enqueue that recomputation (in-process with no broker); log errors.

    If it cannot be enqueued the snapshot keeps counting the withdrawn
    reports until its next advance, which recomputes from corrected tallies.
    """
    task = app.tasks[recompute_snapshot_after_withdrawal.name]
    try:
        task.delay(survey_id)
    except Exception:
        logger.warning(
            "could not enqueue a snapshot recomputation for survey %s",
            survey_id,
            exc_info=True,
        )
        return False
    return True


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_analysis_job(job_id: int) -> str | None:
    """Run a researcher's analysis job (``jobs.job_run``); safe to run twice."""
    job = jobs.job_run(job_id=job_id)
    return job.status if job is not None else None


def send_analysis_job(job_id: int) -> bool:
    """Enqueue a job (in-process with no broker); log and return False on error."""
    task = app.tasks[run_analysis_job.name]
    try:
        task.delay(job_id)
    except Exception:
        logger.warning("could not enqueue analysis job %s", job_id, exc_info=True)
        return False
    return True


@shared_task(ignore_result=True)
def purge_exports() -> int:
    """Remove export files past ``EXPORT_RETENTION_HOURS`` (periodic)."""
    return jobs.export_purge()
