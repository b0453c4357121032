"""Signals the collection app sends; other apps connect to them in their ready().

Collection never imports the apps that react to what it stores (analysis sits
above it), so it announces instead.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import Signal

from surveys.collection.models import Submission

logger = logging.getLogger(__name__)

# Sent once the transaction that stored a submission's reports has committed,
# and, when that happened in a request, once its response has been sent
# (``after_response``).  Keyword argument: ``survey_id``.  Sent robustly: a
# failing receiver is logged and never fails the submission, which is already
# stored (and the periodic reconciliation catches up whatever it missed).
reports_committed = Signal()

# Per thread: the callbacks waiting for the current request's response to be
# sent (None outside a request).
_request = threading.local()


def request_started(sender: Any, **kwargs: Any) -> None:
    """A request began: hold ``after_response`` callbacks until it finishes."""
    _request.pending = []


def request_finished(sender: Any, **kwargs: Any) -> None:
    """The response was sent (the WSGI server closed it): run what was held.

    Each callback runs whatever the others do; a failure is logged."""
    pending = getattr(_request, "pending", None)
    _request.pending = None
    for callback in pending or ():
        try:
            callback()
        except Exception:
            logger.exception("a callback run after the response failed")


def after_response(callback: Callable[[], Any]) -> None:
    """Run ``callback`` once the current request's response is sent, or now
    outside a request (a task, a command, a test calling a service)."""
    pending = getattr(_request, "pending", None)
    if pending is None:
        callback()
    else:
        pending.append(callback)


def announce_reports_on_commit(*, survey_id: int) -> None:
    """Send ``reports_committed`` for ``survey_id`` after the current commit,
    and after the response when in a request: the refresh it enqueues (a cache
    round trip and a broker publish) is off the respondent's wait."""
    send = partial(
        reports_committed.send_robust, sender=Submission, survey_id=survey_id
    )
    transaction.on_commit(partial(after_response, send), robust=True)


# Sent inside the transaction that deletes a withdrawn submission, before its
# reports are deleted, so a receiver can correct what it derived from them in
# the same transaction (an exception rolls the withdrawal back: nothing
# changes).  Keyword arguments: ``survey_id``, ``report_ids``, ``submission_id``.
reports_withdrawing = Signal()
# Sent after that transaction committed.  Keyword argument: ``survey_id``.
reports_withdrawn = Signal()


def announce_withdrawal_on_commit(*, survey_id: int) -> None:
    """Send ``reports_withdrawn`` for ``survey_id`` after the current commit."""
    transaction.on_commit(
        partial(reports_withdrawn.send_robust, sender=Submission, survey_id=survey_id),
        robust=True,
    )
