"""What a reader needs of a survey's snapshot, kept in the shared cache.

Every researcher's read (the dashboard, its live refresh, the estimate exports,
the API) starts from the same small facts: which snapshot is current (id,
version, watermark, when it was computed, how many responses it holds) and
whether it was computed under the survey's current questions and bins.  Read
from the database they take three queries (the snapshot, the questions' five
fingerprinted columns, the bins); they change only when a snapshot is stored
or the questions, their bins or the survey change, which is rare next to reads.

So, with a shared cache (Redis, ``CACHE_URL``), they are kept there as a
:class:`SnapshotHead` under a per-survey *generation*:

* a reader reads the generation and the stored head together (one round
  trip); the head counts only if it was stored under that generation.  Else
  it reads the database and stores what it read with the generation it read
  first;
* a change (a snapshot stored or deleted, a question, its bins or the survey
  saved or deleted) bumps the generation once its transaction commits.

A reader that raced a change can only store what it read with the generation
that the change has since left behind, so no reader after the change uses it:
no stale head outlives its change by more than the commit itself.  A head also
expires after ``SNAPSHOT_HEAD_SECONDS`` as a backstop, and a generation that
the cache lost is started afresh from a random number, never from one an old
head could still be stored under.  With a per-process memory cache (no
``CACHE_URL``) a change made by a worker or another web process would not be
heard, so the head is read from the database on every read, as before; the
same happens while the cache is unreachable.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.fields.json import KeyTextTransform

from surveys.analysis.models import ResultSnapshot

# A backstop only: every change bumps the generation.  It bounds how long a
# head can outlive a change whose bump was lost while the cache was unreachable.
SNAPSHOT_HEAD_SECONDS = 120
# A generation outlives its heads by far; one that expired is started afresh
# like a lost one (so ids that were only ever asked for do not stay).
GENERATION_SECONDS = 24 * 3600


@dataclass(frozen=True)
class SnapshotHead:
    """The latest snapshot of a survey, without its document.

    ``current_definition`` is whether it was computed under the survey's
    current questions and bins (if not, a newer snapshot is due).
    """

    snapshot_id: int
    version: int
    document_format: str
    watermark: int
    computed_at: datetime | None
    responses: int
    current_definition: bool


def shared_cache() -> bool:
    """Whether the default cache is shared by every process (Redis)."""
    return settings.CACHES["default"]["BACKEND"].endswith("RedisCache")


def _generation_key(survey_id: int) -> str:
    return f"analysis:snapshot-head-generation:{survey_id}"


def _head_key(survey_id: int) -> str:
    return f"analysis:snapshot-head:{survey_id}"


def head_from_database(*, survey_id: int) -> SnapshotHead | None:
    """The survey's snapshot head read from the database (None: no snapshot).

    Three queries: the snapshot (without its document), and the two that
    fingerprint the current questions and bins.
    """
    from surveys.analysis.selectors import current_definition

    row = (
        ResultSnapshot.objects.filter(survey_id=survey_id)
        .annotate(document_format=KeyTextTransform("format", "document"))
        .values_list(
            "pk",
            "version",
            "document_format",
            "watermark",
            "computed_at",
            "responses",
            "definition",
        )
        .first()
    )
    if row is None:
        return None
    pk, version, document_format, watermark, computed_at, responses, definition = row
    return SnapshotHead(
        snapshot_id=pk,
        version=version,
        document_format=str(document_format),
        watermark=watermark,
        computed_at=computed_at,
        responses=responses,
        current_definition=definition == current_definition(survey_id=survey_id),
    )


def snapshot_head(*, survey_id: int) -> SnapshotHead | None:
    """The survey's snapshot head: from the shared cache when it holds it.

    One cache round trip on a hit (the generation and the head together: the
    head counts only if it was stored under the current generation); on a
    miss, or without a shared cache, :func:`head_from_database`.
    """
    if not shared_cache():
        return head_from_database(survey_id=survey_id)
    keys = _generation_key(survey_id), _head_key(survey_id)
    try:
        found = cache.get_many(keys)
        generation = found.get(keys[0])
        if generation is None:
            cache.add(keys[0], secrets.randbits(62), timeout=GENERATION_SECONDS)
            generation = cache.get(keys[0])
    except Exception:  # the cache is down: the database answers
        return head_from_database(survey_id=survey_id)
    stored = found.get(keys[1])
    if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == generation:
        return SnapshotHead(**stored[1]) if stored[1] else None  # {}: no snapshot
    head = head_from_database(survey_id=survey_id)
    with contextlib.suppress(Exception):
        cache.set(
            keys[1],
            (generation, asdict(head) if head is not None else {}),
            timeout=SNAPSHOT_HEAD_SECONDS,
        )
    return head


def forget_head(survey_id: int) -> None:
    """Bump the survey's generation once the current transaction commits.

    Heads stored under the old generation are no longer read.  A lost
    generation needs nothing: the next reader starts a new one.
    """

    def bump() -> None:
        with contextlib.suppress(Exception):  # missing key or cache down
            cache.incr(_generation_key(survey_id))

    if shared_cache():
        transaction.on_commit(bump)
