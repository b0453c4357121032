"""Researchers' reads from a streaming replica, at the released snapshot.

With ``REPLICA_DATABASE_URL`` set, the settings add the database alias
``replica`` (a PostgreSQL hot standby of the primary) and this module's
:class:`ReplicaRouter` to ``DATABASE_ROUTERS``.  Without it nothing here is
installed and every read and write uses the primary, as before.

What reads the replica: the results pages' and exports' reads of one survey,
inside :func:`released` (or through :func:`streamed` for a streamed
download).  Everything else (access checks, sessions, writes, tasks a page
queues, workers) uses the primary: the router sends a read to the replica
only inside that context and every write to the primary, always.

The watermark a read needs is the survey's released snapshot as the primary
holds it (its ``version``; the snapshot is what the page shows and what an
export must at least contain).  A standby replays the primary's write-ahead
log in commit order, and a snapshot is committed after every report, tally
and answer it covers, so a replica that holds that snapshot's version holds
everything the snapshot was computed from.  One query on each side decides:
the primary's snapshot version, and whether the replica has it.  A replica
behind it (replay lag, a paused replay), unreachable, or a survey with no
snapshot yet: the read uses the primary.  Reports that arrived after the
snapshot may or may not be on the replica yet; the pages count them as
"arrived since" either way, and a raw export contains at least every report
the released results cover.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError

from surveys.analysis.models import ResultSnapshot

REPLICA = "replica"
PRIMARY = DEFAULT_DB_ALIAS
T = TypeVar("T")

# The alias reads go to inside ``released`` (None: outside it).
_reads_from: ContextVar[str | None] = ContextVar("replica_reads_from", default=None)


class ReplicaRouter:
    """Reads go where :func:`released` decided, or to the primary; writes and
    migrations always to the primary (a standby is read-only)."""

    def db_for_read(self, model, **hints) -> str:
        return _reads_from.get() or PRIMARY

    def db_for_write(self, model, **hints) -> str:
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # the same rows on both: the replica is a copy of the primary

    def allow_migrate(self, db: str, app_label: str, **hints) -> bool:
        return db == PRIMARY


def configured() -> bool:
    """Whether the settings name a replica (``REPLICA_DATABASE_URL``)."""
    return REPLICA in settings.DATABASES


def source_for(survey_id: int) -> str:
    """The alias that holds the survey's released snapshot: the replica if it
    has the primary's snapshot version, else the primary."""
    if not configured() or _reads_from.get() is not None:
        return _reads_from.get() or PRIMARY
    version = (
        ResultSnapshot.objects.using(PRIMARY)
        .filter(survey_id=survey_id)
        .values_list("version", flat=True)
        .first()
    )
    if version is None:
        return PRIMARY
    try:
        caught_up = (
            ResultSnapshot.objects.using(REPLICA)
            .filter(survey_id=survey_id, version__gte=version)
            .exists()
        )
    except DatabaseError:  # unreachable, or restarting: the primary answers
        return PRIMARY
    return REPLICA if caught_up else PRIMARY


@contextmanager
def released(survey_id: int) -> Iterator[str]:
    """Reads inside the block go to :func:`source_for` the survey (yielded)."""
    token = _reads_from.set(source_for(survey_id))
    try:
        yield _reads_from.get() or PRIMARY
    finally:
        _reads_from.reset(token)


def streamed(survey_id: int, items: Iterable[T]) -> Iterator[T]:
    """``items`` (a lazy download's chunks), each read from the source chosen
    now, when the response is made (a streamed body runs after the view
    returned, outside any ``with released(...)`` block)."""
    alias = source_for(survey_id)

    def chunks() -> Iterator[T]:
        iterator = iter(items)
        while True:
            token = _reads_from.set(alias)
            try:
                item = next(iterator)
            except StopIteration:
                return
            finally:
                _reads_from.reset(token)
            yield item

    return chunks()
