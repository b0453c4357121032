"""How a randomized report is stored: the compact columns its mechanism names.

A report arrives as JSON (``ldp/spec/README.md``, "Reports on the wire") and is
validated there by its mechanism.  It is stored in one of two nullable columns
of ``Report``, never both: ``value`` (an integer) or ``bits`` (bytes).  Which
one, and how, is declared by each mechanism in its own module
(``storage``: ``ldp.mechanisms.storage`` for the shared forms, Hadamard's and
OLH's in theirs); docs/architecture.md, "How reports are stored", has the
table.  This module finds a spec's mechanism in the registry and asks it.

``encode`` turns a validated JSON report into those columns and ``decode``
turns them back into exactly the JSON report (the same Python ints and lists,
so exports serialise byte for byte as before).  ``stored_counts`` folds stored
rows straight into support counts (packed bits without unpacking a batch).

This is a storage format: changing it needs a data migration (collection 0009
converted the JSON payloads of earlier versions with these functions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ldp
from ldp.mechanisms import registry
from ldp.mechanisms.storage import ReportStorage, StoredReport

__all__ = [
    "StoredReport",
    "decode",
    "decode_rows",
    "encode",
    "has_stored_form",
    "stored_array",
    "stored_counts",
]


def _storage(spec: Mapping[str, Any]) -> ReportStorage:
    family = registry.of(spec)
    if family is None:
        raise ValueError(
            f"no stored form for mechanism {spec.get('mechanism')!r}; allowed: "
            f"{sorted(registry.names())}"
        )
    return family.storage


def has_stored_form(spec: Mapping[str, Any] | None) -> bool:
    """Whether reports of ``spec`` have a stored form (its mechanism is known)."""
    return registry.of(spec) is not None


def encode(spec: Mapping[str, Any], report: Any) -> StoredReport:
    """The stored columns of ``report``, a JSON report already validated
    against ``spec`` (``mechanism.validate_report``).

    Raises ValueError for a report of the wrong shape (never for a valid one).
    """
    return _storage(spec).encode(spec, report)


def decode(spec: Mapping[str, Any], value: int | None, bits: Any) -> Any:
    """The JSON report stored as ``(value, bits)`` under ``spec``: the inverse
    of :func:`encode`.  ``bits`` may be bytes or a memoryview (as database
    drivers return bytea)."""
    return _storage(spec).decode(spec, value, bits)


def stored_array(spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]) -> Any:
    """Stored ``(value, bits)`` rows as the array ``ldp`` aggregates."""
    return _storage(spec).array(spec, rows)


def stored_counts(
    mechanism: ldp.Mechanism, rows: Sequence[tuple[Any, Any]]
) -> ldp.SupportCounts:
    """Support counts of stored ``(value, bits)`` rows of one spec: equal to
    ``mechanism.aggregate`` of the decoded JSON reports."""
    return mechanism.aggregate_stored(rows)


def decode_rows(
    spec: Mapping[str, Any], rows: Iterable[tuple[Any, Any, Any]]
) -> Iterable[tuple[Any, Any]]:
    """``(key, value, bits)`` rows of one spec as ``(key, JSON report)``."""
    storage = _storage(spec)
    for key, value, bits in rows:
        yield key, storage.decode(spec, value, bits)
