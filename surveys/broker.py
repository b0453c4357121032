"""Celery's Redis transport, made to survive a broker that drops mid-task.

kombu 5.7's Redis channel, when the connection to Redis is lost while the
worker holds an unacknowledged message (a task running, or one waiting for its
countdown), tries to requeue that message while closing the channel, after the
transport has already been detached from its connection.  That raises
``AttributeError`` ("'NoneType' object has no attribute 'hostname'") outside
the errors kombu ignores on close, and the worker exits ("Unrecoverable
error") instead of reconnecting.

:class:`Transport` is kombu's Redis transport with a channel that treats that
failure as what it is: the connection is gone, so the message cannot be
requeued now.  Nothing is lost by skipping it: Redis keeps the message in its
unacknowledged set and redelivers it after the visibility timeout
(``CELERY_VISIBILITY_TIMEOUT``), every task here is idempotent, and beat's
``reconcile_tallies`` folds in any report whose refresh is late.  Selected by
``CELERY_BROKER_TRANSPORT`` in settings whenever the broker is Redis.
"""

from __future__ import annotations

import logging

from kombu.transport import redis as kombu_redis

logger = logging.getLogger(__name__)


class Channel(kombu_redis.Channel):
    """A Redis channel whose ``close`` survives a connection already torn down."""

    def close(self) -> None:
        try:
            super().close()
        except AttributeError:
            transport = self.connection
            if transport is not None and getattr(transport, "client", None):
                raise  # a real bug, not the torn-down connection
            logger.warning(
                "Redis connection lost while closing a channel; unacknowledged "
                "messages stay in Redis and are redelivered after the "
                "visibility timeout."
            )


class Transport(kombu_redis.Transport):
    """kombu's Redis transport using :class:`Channel`."""

    Channel = Channel
