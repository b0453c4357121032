"""How a mechanism's reports are stored compactly: one integer or a few bytes.

A report travels as JSON (``ldp/spec/README.md``, "Reports on the wire") and
is validated in that form by its mechanism.  A store keeps it in one of two
columns, never both: ``value``, a non-negative integer, or ``bits``, bytes.
Each mechanism names its :class:`ReportStorage` (its ``storage`` attribute);
the shared forms are here, the forms of one mechanism in its own module
(Hadamard's ``2 j + bit``, OLH's packed hash seeds).

``encode`` turns a validated JSON report into the two columns, ``decode``
turns them back into exactly the JSON report (the same Python ints and
lists), and ``array`` turns many stored rows into the array that
``aggregate`` counts without building JSON (packed bits are counted packed:
``aggregate_packed``, docs/maths.md section 3.8).  A store's rows are a
storage format: changing one needs a migration of the stored data.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray
from ldp.spec.validation import is_int

VALUE, BITS = "value", "bits"
"""The two columns a stored report may use."""


@dataclass(frozen=True)
class StoredReport:
    """The stored columns of one report: exactly one of them is not None.

    Attributes
    ----------
    value : int or None
        A non-negative integer.
    bits : bytes or None
        Packed bytes.
    """

    value: int | None = None
    bits: bytes | None = None

    def fields(self) -> dict[str, Any]:
        """The two columns by name.

        Returns
        -------
        dict
            ``{"value": …, "bits": …}``.

        Examples
        --------
        >>> StoredReport(value=3).fields()
        {'value': 3, 'bits': None}
        """
        return {VALUE: self.value, BITS: self.bits}


def natural(value: Any, name: str) -> int:
    """``value`` if it is an int ``>= 0`` (not a bool), else ValueError."""
    if not is_int(value) or value < 0:
        raise ValueError(f"{name} report {value!r} is not a natural number")
    return value


def sequence(report: Any, length: int, name: str) -> Sequence[Any]:
    """``report`` if it is a list (or tuple) of ``length``, else ValueError."""
    if not isinstance(report, (list, tuple)) or len(report) != length:
        raise ValueError(f"{name} report must be a list of {length}, got {report!r}")
    return report


def _name(spec: Mapping[str, Any]) -> str:
    return str(spec.get("mechanism"))


class ReportStorage(ABC):
    """A stored form of reports: which column, and how to write and read it."""

    column: ClassVar[str]
    """``"value"`` or ``"bits"``: the column this form uses."""

    @abstractmethod
    def encode(self, spec: Mapping[str, Any], report: Any) -> StoredReport:
        """The stored columns of a JSON report already validated under ``spec``.

        Raises ValueError for a report of the wrong shape (never a valid one).
        """

    @abstractmethod
    def decode(self, spec: Mapping[str, Any], value: int | None, bits: Any) -> Any:
        """The JSON report stored as ``(value, bits)``: the inverse of ``encode``.

        ``bits`` may be bytes or a memoryview (as database drivers return
        binary columns); ValueError if the row is not of this form.
        """

    @abstractmethod
    def array(
        self, spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]
    ) -> AnyArray:
        """Stored ``(value, bits)`` rows as the array ``aggregate`` counts."""

    def _values(self, spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]) -> Any:
        if any(bits is not None or value is None for value, bits in rows):
            raise ValueError(f"stored {_name(spec)} reports need value and no bits")
        return np.fromiter((value for value, _ in rows), np.int64, len(rows))

    def _joined(
        self, spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]], width: int
    ) -> bytes:
        if any(
            value is not None or bits is None or len(bits) != width
            for value, bits in rows
        ):
            raise ValueError(
                f"stored {_name(spec)} reports need {width} bytes of bits and no value"
            )
        return b"".join(bytes(bits) for _, bits in rows)

    def _value_of(self, spec: Mapping[str, Any], value: Any, bits: Any) -> int:
        if value is None or bits is not None:
            raise ValueError(f"a stored {_name(spec)} report needs value and no bits")
        return int(value)

    def _bits_of(self, spec: Mapping[str, Any], value: Any, bits: Any) -> bytes:
        if value is not None or bits is None:
            raise ValueError(f"a stored {_name(spec)} report needs bits and no value")
        return bytes(bits)


class IntegerStorage(ReportStorage):
    """A report that is one integer ``>= 0`` (an answer, output or item index).

    Stored as it is in ``value`` (4 bytes in the column).

    Examples
    --------
    >>> spec = {"mechanism": "grr", "k": 5}
    >>> INTEGER.encode(spec, 3), INTEGER.decode(spec, 3, None)
    (StoredReport(value=3, bits=None), 3)
    """

    column = VALUE

    def encode(self, spec: Mapping[str, Any], report: Any) -> StoredReport:
        return StoredReport(value=natural(report, _name(spec)))

    def decode(self, spec: Mapping[str, Any], value: int | None, bits: Any) -> Any:
        return self._value_of(spec, value, bits)

    def array(
        self, spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]
    ) -> AnyArray:
        values: AnyArray = self._values(spec, rows)
        return values


class PackedBitsStorage(ReportStorage):
    """A report of k bits, packed eight to a byte in ``bits``.

    Big-endian within each byte, the last byte padded with zero bits
    (``np.packbits``): ``ceil(k / 8)`` bytes.

    Examples
    --------
    >>> spec = {"mechanism": "oue", "k": 10}
    >>> stored = PACKED_BITS.encode(spec, [1, 0, 0, 0, 0, 0, 0, 1, 1, 0])
    >>> stored.bits, PACKED_BITS.decode(spec, None, stored.bits)
    (b'\\x81\\x80', [1, 0, 0, 0, 0, 0, 0, 1, 1, 0])
    """

    column = BITS

    @staticmethod
    def width(spec: Mapping[str, Any]) -> int:
        """Bytes of one packed report: ``ceil(k / 8)``."""
        return -(-int(spec["k"]) // 8)

    def encode(self, spec: Mapping[str, Any], report: Any) -> StoredReport:
        k, name = int(spec["k"]), _name(spec)
        bits = sequence(report, k, name)
        if any(bit not in (0, 1) for bit in bits):
            raise ValueError(f"{name} report must be {k} bits, each 0 or 1")
        return StoredReport(
            bits=np.packbits(np.asarray(bits, dtype=np.uint8)).tobytes()
        )

    def decode(self, spec: Mapping[str, Any], value: int | None, bits: Any) -> Any:
        raw = self._bits_of(spec, value, bits)
        if len(raw) != self.width(spec):
            raise ValueError(
                f"a stored {_name(spec)} report has {self.width(spec)} bytes"
            )
        unpacked = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), count=spec["k"])
        return unpacked.astype(int).tolist()

    def array(
        self, spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]
    ) -> AnyArray:
        width = self.width(spec)
        joined = self._joined(spec, rows, width)
        return np.frombuffer(joined, dtype=np.uint8).reshape(len(rows), width)


INTEGER = IntegerStorage()
PACKED_BITS = PackedBitsStorage()
