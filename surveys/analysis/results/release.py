"""When new submissions may enter the results: the release rule.

Results advance in batches, so that no single submission can be told apart
by comparing two snapshots.  The rule lives here, once: the worker that
computes a snapshot (``services.snapshot_refresh``) and every reader deciding
whether a computation is due (``selectors.latest_results``) ask it, so a page
view while a batch is held back queues nothing.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings


def snapshot_batch_ready(
    *, new_responses: int, since: datetime | None, now: datetime
) -> bool:
    """Whether a snapshot may advance by ``new_responses`` submissions.

    It advances once at least ``SNAPSHOT_MIN_NEW_SUBMISSIONS`` submissions are
    new, or once ``SNAPSHOT_MAX_WAIT_SECONDS`` have passed since the previous
    snapshot (``since``) with any new submission (so that nothing accepted is
    left out of the results for ever; 0 turns the period off).
    """
    if new_responses <= 0:
        return False
    if new_responses >= settings.SNAPSHOT_MIN_NEW_SUBMISSIONS:
        return True
    period = settings.SNAPSHOT_MAX_WAIT_SECONDS
    if not period or since is None:
        return False
    return (now - since).total_seconds() >= period
