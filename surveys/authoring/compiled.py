"""Compiled mechanisms, shared by the whole process and keyed by their spec.

``ldp.build`` validates a spec and derives its integer weights; for a fine
numeric grid that takes seconds.  The result depends on the spec alone, so one
compiled mechanism serves every request, task and question whose spec is the
same: the cache is keyed by the spec's canonical JSON (sorted keys, no
whitespace) and keeps the ``MECHANISM_CACHE_SIZE`` most recently used ones.

A mechanism is filed under both the spec it was asked for (the builder's
requested spec, without weights) and the spec it compiles to (with its integer
weights, as stored on the question): the builder compiles the first, every
later page (consent, answer, dashboard) reads the second, and neither compiles
again in the same process.

A cached mechanism is shared, so callers treat it as read-only; its ``spec``
property returns a fresh copy, which may be stored or changed freely.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, NamedTuple

from django.core.cache import cache

import ldp
from surveys.version import deniable_version

logger = logging.getLogger(__name__)
# Most mechanisms take kilobytes; a 201-level numeric grid about 1 MB.
MECHANISM_CACHE_SIZE = 128


class CacheInfo(NamedTuple):
    """Hits, misses, bound and size, as ``functools.lru_cache`` reports them."""

    hits: int
    misses: int
    maxsize: int
    currsize: int


_lock = threading.Lock()
_cache: OrderedDict[str, ldp.Mechanism] = OrderedDict()
_counts = {"hits": 0, "misses": 0}


def canonical_spec(spec: Mapping[str, Any]) -> str:
    """The spec as canonical JSON: equal specs give equal strings."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _remember(canonical: str, mechanism: ldp.Mechanism) -> None:
    _cache[canonical] = mechanism
    _cache.move_to_end(canonical)
    while len(_cache) > MECHANISM_CACHE_SIZE:
        _cache.popitem(last=False)


def compiled_mechanism(spec: Mapping[str, Any]) -> ldp.Mechanism:
    """The mechanism ``spec`` compiles to, built once per process and spec.

    Raises ValueError (from ``ldp.build``) for an invalid spec; failures are
    not cached.
    """
    try:
        canonical = canonical_spec(spec)
    except (TypeError, ValueError):
        # Not JSON (so never stored): ldp says what is wrong with it.
        return ldp.build(spec)
    with _lock:
        mechanism = _cache.get(canonical)
        if mechanism is not None:
            _cache.move_to_end(canonical)
            _counts["hits"] += 1
            return mechanism
        _counts["misses"] += 1
    # Built outside the lock: two threads may build the same spec once each.
    mechanism = ldp.build(json.loads(canonical))
    compiled = canonical_spec(mechanism.spec)
    with _lock:
        if compiled != canonical:
            _remember(compiled, mechanism)
        _remember(canonical, mechanism)
    return mechanism


def cache_info() -> CacheInfo:
    """Hits, misses and size of the process-wide cache (``functools`` form)."""
    with _lock:
        return CacheInfo(
            _counts["hits"], _counts["misses"], MECHANISM_CACHE_SIZE, len(_cache)
        )


def cache_clear() -> None:
    """Forget every compiled mechanism (for tests and benchmarks)."""
    with _lock:
        _cache.clear()
        _counts["hits"] = _counts["misses"] = 0


def shared_get(key: str) -> Any:
    """``key`` from Django's cache, or None when missing or the cache is down.

    A cache outage makes the builder slower, never unavailable.
    """
    try:
        return cache.get(key)
    except Exception as error:  # any cache failure: compute instead
        logger.warning("Cache read skipped (%s).", type(error).__name__)
        return None


def shared_set(key: str, value: Any, timeout: int) -> None:
    """Keep ``value`` under ``key`` in Django's cache; a cache outage is ignored."""
    try:
        cache.set(key, value, timeout=timeout)
    except Exception as error:
        logger.warning("Cache write skipped (%s).", type(error).__name__)


def shared_key(kind: str, facts: Mapping[str, Any]) -> str:
    """A shared-cache key for what is derived from ``facts`` (a spec, or a
    question's domain and ε): a SHA-256 of their canonical JSON, under the
    installed version and the spec version, so a release that changes how
    figures or words are derived never reads an older release's entries."""
    digest = hashlib.sha256(canonical_spec(facts).encode()).hexdigest()
    return f"authoring:{kind}:{deniable_version()}:{ldp.SPEC_VERSION}:{digest}"
