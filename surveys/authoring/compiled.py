"""Compiled mechanisms, shared by the whole process and keyed by their spec.

``ldp.build`` validates a spec and derives its integer weights; for a fine
numeric grid that takes seconds.  The result depends on the spec alone, so one
compiled mechanism serves every request, task and question whose spec is the
same: the cache is keyed by the spec's canonical JSON (sorted keys, no
whitespace) and keeps the ``MECHANISM_CACHE_SIZE`` most recently used ones.

A cached mechanism is shared, so callers treat it as read-only; its ``spec``
property returns a fresh copy, which may be stored or changed freely.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import ldp

# Most mechanisms take kilobytes; a 1001-level numeric grid up to about 25 MB.
MECHANISM_CACHE_SIZE = 128


def canonical_spec(spec: Mapping[str, Any]) -> str:
    """The spec as canonical JSON: equal specs give equal strings."""
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), allow_nan=False)


@lru_cache(maxsize=MECHANISM_CACHE_SIZE)
def _compile(canonical: str) -> ldp.Mechanism:
    return ldp.build(json.loads(canonical))


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
    return _compile(canonical)


def cache_info() -> Any:
    """Hits, misses and size of the process-wide cache (``functools`` form)."""
    return _compile.cache_info()


def cache_clear() -> None:
    """Forget every compiled mechanism (for tests and benchmarks)."""
    _compile.cache_clear()
