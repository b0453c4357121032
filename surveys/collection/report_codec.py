"""How a randomized report is stored: compact columns chosen per mechanism.

A report arrives as JSON (``ldp/spec/README.md``, "Reports on the wire") and is
validated there by its mechanism.  It is stored in one of two nullable columns
of ``Report``, never both:

========================================== ========== ===========================
mechanisms                                 column     stored form
========================================== ========== ===========================
forced_response, warner, grr, ordinal,     ``value``  the report itself, an
geometric, gaussian, duchi, piecewise,                integer ``>= 0``
padding_sampling
hadamard                                   ``value``  ``2 j + bit`` for ``[j, bit]``
sue, oue, multi_rr                         ``bits``   the k bits packed eight to a
                                                      byte, big-endian, the last
                                                      byte padded with zero bits
                                                      (``np.packbits``):
                                                      ``ceil(k / 8)`` bytes
olh                                        ``bits``   ``[a, b, y]`` as big-endian
                                                      unsigned 32, 32 and 16-bit
                                                      words: 10 bytes
========================================== ========== ===========================

``encode`` turns a validated JSON report into those columns and ``decode``
turns them back into exactly the JSON report (the same Python ints and lists,
so exports serialise byte for byte as before).  ``stored_counts`` folds stored
rows straight into support counts, packed bits through
``aggregate_packed`` without unpacking a batch.

This is a storage format: changing it needs a data migration (collection 0009
converted the JSON payloads of earlier versions with these functions).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import ldp
from ldp.mechanisms.reports import BitReportHandling

INDEX_MECHANISMS = frozenset(
    {
        "forced_response",
        "warner",
        "grr",
        "ordinal",
        "geometric",
        "gaussian",
        "duchi",
        "piecewise",
        "padding_sampling",
    }
)
"""Mechanisms whose report is one integer, stored as it is in ``value``."""
PAIR_MECHANISMS = frozenset({"hadamard"})
"""Mechanisms whose report is ``[j, bit]``, stored as ``2 j + bit`` in ``value``."""
BIT_MECHANISMS = frozenset({"sue", "oue", "multi_rr"})
"""Mechanisms whose report is k bits, packed into ``bits``."""
SEEDED_MECHANISMS = frozenset({"olh"})
"""Mechanisms whose report is ``[a, b, y]`` (hash seed and value), in ``bits``."""
MECHANISMS = INDEX_MECHANISMS | PAIR_MECHANISMS | BIT_MECHANISMS | SEEDED_MECHANISMS

_SEEDED = struct.Struct(">IIH")
_SEEDED_DTYPE = np.dtype([("a", ">u4"), ("b", ">u4"), ("y", ">u2")])


@dataclass(frozen=True)
class StoredReport:
    """The stored columns of one report: exactly one of them is not None."""

    value: int | None = None
    bits: bytes | None = None

    def fields(self) -> dict[str, Any]:
        """``{"value": …, "bits": …}``, the keyword arguments of ``Report``."""
        return {"value": self.value, "bits": self.bits}


def _mechanism_name(spec: Mapping[str, Any]) -> str:
    name = spec.get("mechanism")
    if name not in MECHANISMS:
        raise ValueError(
            f"no stored form for mechanism {name!r}; allowed: {sorted(MECHANISMS)}"
        )
    return str(name)


def bit_width(spec: Mapping[str, Any]) -> int:
    """Bytes of one packed report of a bit mechanism: ``ceil(k / 8)``."""
    return -(-int(spec["k"]) // 8)


def encode(spec: Mapping[str, Any], report: Any) -> StoredReport:
    """The stored columns of ``report``, a JSON report already validated
    against ``spec`` (``mechanism.validate_report``).

    Raises ValueError for a report of the wrong shape (never for a valid one).

    Examples
    --------
    >>> encode({"mechanism": "grr", "k": 5}, 3)
    StoredReport(value=3, bits=None)
    >>> encode({"mechanism": "hadamard", "k": 5}, [6, 1])
    StoredReport(value=13, bits=None)
    >>> encode({"mechanism": "oue", "k": 10}, [1, 0, 0, 0, 0, 0, 0, 1, 1, 0])
    StoredReport(value=None, bits=b'\\x81\\x80')
    """
    name = _mechanism_name(spec)
    if name in INDEX_MECHANISMS:
        return StoredReport(value=_natural(report, name))
    if name in PAIR_MECHANISMS:
        j, bit = _sequence(report, 2, name)
        if bit not in (0, 1):
            raise ValueError(f"{name} report bit is {bit!r}; allowed: 0 or 1")
        return StoredReport(value=2 * _natural(j, name) + bit)
    if name in BIT_MECHANISMS:
        k = int(spec["k"])
        bits = _sequence(report, k, name)
        if any(bit not in (0, 1) for bit in bits):
            raise ValueError(f"{name} report must be {k} bits, each 0 or 1")
        return StoredReport(
            bits=np.packbits(np.asarray(bits, dtype=np.uint8)).tobytes()
        )
    a, b, y = (_natural(part, name) for part in _sequence(report, 3, name))
    try:
        return StoredReport(bits=_SEEDED.pack(a, b, y))
    except struct.error:
        raise ValueError(
            f"{name} report {report!r} does not fit its stored form"
        ) from None


def decode(spec: Mapping[str, Any], value: int | None, bits: Any) -> Any:
    """The JSON report stored as ``(value, bits)`` under ``spec``: the inverse
    of :func:`encode` (``decode(spec, *encode(spec, r).fields().values()) == r``).

    ``bits`` may be bytes or a memoryview (as database drivers return bytea).

    Examples
    --------
    >>> decode({"mechanism": "grr", "k": 5}, 3, None)
    3
    >>> decode({"mechanism": "hadamard", "k": 5}, 13, None)
    [6, 1]
    >>> decode({"mechanism": "oue", "k": 10}, None, b"\\x81\\x80")
    [1, 0, 0, 0, 0, 0, 0, 1, 1, 0]
    """
    name = _mechanism_name(spec)
    if name in INDEX_MECHANISMS or name in PAIR_MECHANISMS:
        if value is None or bits is not None:
            raise ValueError(f"a stored {name} report needs value and no bits")
        return int(value) if name in INDEX_MECHANISMS else [value >> 1, value & 1]
    if value is not None or bits is None:
        raise ValueError(f"a stored {name} report needs bits and no value")
    raw = bytes(bits)
    if name in BIT_MECHANISMS:
        k = int(spec["k"])
        if len(raw) != bit_width(spec):
            raise ValueError(f"a stored {name} report has {bit_width(spec)} bytes")
        unpacked = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), count=k)
        return unpacked.astype(int).tolist()
    if len(raw) != _SEEDED.size:
        raise ValueError(f"a stored {name} report has {_SEEDED.size} bytes")
    return list(_SEEDED.unpack(raw))


def stored_array(spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]) -> Any:
    """Stored ``(value, bits)`` rows as the array ``ldp`` aggregates: 1-d ints
    (one-integer reports), ``(n, 2)`` (hadamard), ``(n, 3)`` (olh), or the
    packed ``(n, ceil(k / 8))`` uint8 rows of a bit mechanism."""
    name = _mechanism_name(spec)
    if name in INDEX_MECHANISMS or name in PAIR_MECHANISMS:
        if any(bits is not None or value is None for value, bits in rows):
            raise ValueError(f"stored {name} reports need value and no bits")
        values = np.fromiter((value for value, _ in rows), np.int64, len(rows))
        if name in INDEX_MECHANISMS:
            return values
        return np.stack([values >> 1, values & 1], axis=1)
    width = bit_width(spec) if name in BIT_MECHANISMS else _SEEDED.size
    if any(
        value is not None or bits is None or len(bits) != width for value, bits in rows
    ):
        raise ValueError(
            f"stored {name} reports need {width} bytes of bits and no value"
        )
    joined = b"".join(bits for _, bits in rows)
    if name in BIT_MECHANISMS:
        return np.frombuffer(joined, dtype=np.uint8).reshape(len(rows), width)
    seeded = np.frombuffer(joined, dtype=_SEEDED_DTYPE)
    return np.stack([seeded[part].astype(np.int64) for part in "aby"], axis=1)


def stored_counts(
    mechanism: ldp.Mechanism, rows: Sequence[tuple[Any, Any]]
) -> ldp.SupportCounts:
    """Support counts of stored ``(value, bits)`` rows of one spec.

    Equal to ``mechanism.aggregate`` of the decoded JSON reports; bit reports
    are counted packed (``aggregate_packed``, docs/maths.md section 3.8).
    """
    array = stored_array(mechanism.spec, rows)
    if isinstance(mechanism, BitReportHandling):
        return mechanism.aggregate_packed(array)
    return mechanism.aggregate(array)


def decode_rows(
    spec: Mapping[str, Any], rows: Iterable[tuple[Any, Any, Any]]
) -> Iterable[tuple[Any, Any]]:
    """``(key, value, bits)`` rows of one spec as ``(key, JSON report)``."""
    for key, value, bits in rows:
        yield key, decode(spec, value, bits)


def _natural(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name} report {value!r} is not a natural number")
    return value


def _sequence(report: Any, length: int, name: str) -> Sequence[Any]:
    if not isinstance(report, (list, tuple)) or len(report) != length:
        raise ValueError(f"{name} report must be a list of {length}, got {report!r}")
    return report
