"""Reports of k bits: counted packed, stored packed, one column per option."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.counts import SupportCounts
from ldp.mechanisms.about import BIT_LABELS, ExportColumn, REstimator
from ldp.mechanisms.reports import (
    ReportHandling,
    bit_column_counts,
    packed_bit_column_counts,
)
from ldp.mechanisms.storage import PACKED_BITS, ReportStorage
from ldp.mechanisms.words import Options, Words, gettext_noop

BITS = REstimator(
    "estimate_bits",
    """support_bits <- function(rows, columns, k, ...) {
  matrix(as.numeric(as.matrix(rows[, columns, drop = FALSE])), nrow = nrow(rows))
}
estimate_bits <- function(d, columns, labels, p, q, title = columns[1],
                          revision_column = NA, revision = NA,
                          simplex = FALSE) {
  keep <- keep_rows(d, columns[1], revision_column, revision)
  count <- colSums(d[keep, columns, drop = FALSE])
  show(title, labels, count, sum(keep), p, q, 1, simplex)
}""",
    support="support_bits",
)
"""Shares from one 0/1 column per option: the column sums."""


class BitReportHandling(ReportHandling):
    """Reports of k bits (unary encodings, multi-select RR): count while validating.

    Mixed in before the mechanism's base class; provides the array checks, the
    fused count-and-validate step and :meth:`aggregate_packed`, and what every
    bit report declares: stored packed (``PACKED_BITS``), counted by support
    (``C_v <= n``, not a histogram), one export column per option, worded as
    the options whose bit is set.
    """

    k: int
    storage: ClassVar[ReportStorage] = PACKED_BITS
    support_words: ClassVar[str] = "reports with bit v set"
    r_estimator: ClassVar[REstimator | None] = BITS

    def r_arguments(self) -> dict[str, Any]:
        """``simplex``: whether the shares have a consistent (Norm-Sub) form
        (every option's bit is its support)."""
        return {"simplex": not hasattr(self, "max_selections")}

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """``(k, False)``: one support count per option, each ``<= n``."""
        return int(params["k"]), False

    def aggregate_stored(self, rows: Sequence[tuple[Any, Any]]) -> SupportCounts:
        """Counted packed (:meth:`aggregate_packed`), never unpacked whole."""
        return self.aggregate_packed(self.storage.array(self.spec, rows))

    def support_rows(self, reports: AnyArray) -> AnyArray:
        """Bit v of report i supports option v: ``S[i, v] = bits[i, v]``."""
        return np.asarray(reports, dtype=bool)

    def report_words(self, report: Any) -> Words:
        """The options whose bit the report sets (not the options chosen)."""
        marked = tuple(i for i, bit in enumerate(report) if bit == 1)
        words = gettext_noop("randomized marks, one per option, on for: %(options)s")
        return Words(words, {"options": Options(marked)})

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """One 0/1 column per option, labelled with the option."""
        return tuple(
            ExportColumn(
                suffix=f"_opt{v + 1}",
                label="bit for “{option}”: {question}",
                option=v,
                value_labels=BIT_LABELS,
            )
            for v in range(self.k)
        )

    def _array_from_reports(self, reports: list[Any]) -> AnyArray:
        return np.asarray(reports, dtype=np.uint8).reshape(-1, self.k)

    def _check_array(self, array: AnyArray) -> AnyArray:
        if array.ndim != 2 or array.shape[1] != self.k:
            raise ValueError(f"{self.name} reports must have shape (n, {self.k})")
        if array.size and array.dtype.kind not in "iub":
            raise ValueError(f"{self.name} reports must be bits")
        return array

    def _support_counts(self, array: AnyArray) -> IntArray:
        counts = bit_column_counts(array)
        if counts is None and array.dtype == np.bool_:
            counts = array.sum(axis=0, dtype=np.int64)  # bytes other than 0/1
        if counts is None:
            raise ValueError(f"{self.name} reports must be bits")
        return counts

    def aggregate_packed(self, packed: Any) -> SupportCounts:
        """Support counts of reports stored as ``np.packbits(bits, axis=1)`` rows.

        Parameters
        ----------
        packed : ndarray of uint8, shape (n, ceil(k / 8))
            One row per report: its k bits packed big-endian eight to a byte,
            the last byte's unused low bits zero.

        Returns
        -------
        SupportCounts
            Identical to ``aggregate`` of the unpacked ``(n, k)`` bits.

        Raises
        ------
        ValueError
            If the array is not uint8 of that shape or a padding bit is set.

        Notes
        -----
        ``C_v = Σ_i bit v of report i``, counted a block at a time without
        unpacking the whole batch (see :func:`packed_bit_column_counts`).

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.3.
        .. [2] docs/maths.md, section 3.8.

        Examples
        --------
        >>> import ldp
        >>> oue = ldp.build({"mechanism": "oue", "k": 3, "epsilon": 1.0})
        >>> bits = np.array([[1, 0, 1], [1, 1, 0]], dtype=np.uint8)
        >>> oue.aggregate_packed(np.packbits(bits, axis=1)).counts
        array([2, 1, 1])
        """
        packed = np.asarray(packed)
        width = -(-self.k // 8)
        if packed.ndim != 2 or packed.shape[1] != width or packed.dtype != np.uint8:
            raise ValueError(
                f"{self.name} packed reports must be uint8 of shape (n, {width})"
            )
        counts = packed_bit_column_counts(packed, self.k)
        if counts is None:
            raise ValueError(
                f"{self.name} packed reports must have the {width * 8 - self.k} "
                "padding bits of each row zero"
            )
        return SupportCounts(int(packed.shape[0]), counts, self.spec)
