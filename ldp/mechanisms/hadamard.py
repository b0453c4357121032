"""Hadamard randomized response: one random Hadamard coefficient, one bit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.exact import keep_other_weights, log_ratio
from ldp.mechanisms.about import (
    BIT_LABELS,
    ORDINAL,
    SINGLE_CHOICE,
    ExportColumn,
    REstimator,
)
from ldp.mechanisms.oracle import FrequencyOracle
from ldp.mechanisms.storage import (
    ReportStorage,
    StoredReport,
    natural,
    sequence,
)
from ldp.mechanisms.words import Words, gettext_noop
from ldp.sampling import Draw, secure_words, uniform_below
from ldp.spec.ratio import pair_ratio

_BLOCK_ROWS = 1 << 16
"""Reports range-checked and counted per step (1 MiB of int64 pairs)."""


def walsh_hadamard(values: AnyArray) -> AnyArray:
    """Fast Walsh–Hadamard transform in natural (Sylvester) order.

    Parameters
    ----------
    values : ndarray
        Length a power of two ``K``.

    Returns
    -------
    ndarray
        ``H values`` with ``H[j, v] = (−1)^{popcount(j AND v)}``.

    Notes
    -----
    ``log2 K`` butterfly passes ``(u, w) → (u + w, u − w)``: ``O(K log K)``.
    Integer input stays exact.

    References
    ----------
    .. [1] G. Cormode, T. Kulkarni, D. Srivastava, "Marginal release under local
       differential privacy", SIGMOD 2018 (Hadamard randomized response).
    .. [2] docs/maths.md, section 3.
    """
    result = np.array(values, copy=True)
    size = result.size
    if size & (size - 1):
        raise ValueError(f"length must be a power of two, got {size}")
    h = 1
    while h < size:
        blocks = result.reshape(-1, 2, h)
        upper, lower = blocks[:, 0, :], blocks[:, 1, :]
        upper += lower  # u + w
        lower *= -2
        lower += upper  # (u + w) − 2w = u − w, in place
        h *= 2
    return result


def _parity_bit(j: Any, x: Any) -> Any:
    """1 if ``popcount(j AND x)`` is even, else 0.

    The parity is folded by XOR-shifts (``v ^= v >> 32, 16, …, 1`` leaves the
    parity of the 64 bits in bit 0), which every supported numpy has
    (``np.bitwise_count`` needs numpy 2).
    """
    v = np.bitwise_and(j, x)
    for shift in (32, 16, 8, 4, 2, 1):
        v = v ^ (v >> shift)
    return 1 - (v & 1)


R_ESTIMATOR = REstimator(
    "estimate_hadamard",
    """parity <- function(x) {
  out <- integer(length(x))
  while (any(x > 0)) { out <- bitwXor(out, bitwAnd(x, 1L)); x <- bitwShiftR(x, 1L) }
  out
}
support_hadamard <- function(rows, columns, k, ...) {
  j <- rows[[columns[1]]]; bit <- rows[[columns[2]]]
  matrix(vapply(seq_len(k) - 1L, function(v) {
    as.numeric(bit == 1L - parity(bitwAnd(j, v)))
  }, numeric(length(j))), nrow = length(j))
}
estimate_hadamard <- function(d, columns, labels, p, q, title = columns[1],
                              revision_column = NA, revision = NA,
                          simplex = FALSE) {
  keep <- keep_rows(d, columns[1], revision_column, revision)
  j <- d[[columns[1]]][keep]; bit <- d[[columns[2]]][keep]
  count <- sapply(seq_along(labels) - 1, function(v) {
    sum(bit == 1L - parity(bitwAnd(j, v)))
  })
  show(title, labels, count, sum(keep), p, q, 1, simplex)
}""",
    support="support_hadamard",
)
"""Shares from the rows and bits: the reports whose bit is H[j, v]'s."""


class PairStorage(ReportStorage):
    """A report ``[j, bit]`` stored as the integer ``2 j + bit`` in ``value``.

    Examples
    --------
    >>> spec = {"mechanism": "hadamard", "k": 5}
    >>> PairStorage().encode(spec, [6, 1]), PairStorage().decode(spec, 13, None)
    (StoredReport(value=13, bits=None), [6, 1])
    """

    column = "value"

    def encode(self, spec: Mapping[str, Any], report: Any) -> StoredReport:
        name = str(spec["mechanism"])
        j, bit = sequence(report, 2, name)
        if bit not in (0, 1):
            raise ValueError(f"{name} report bit is {bit!r}; allowed: 0 or 1")
        return StoredReport(value=2 * natural(j, name) + bit)

    def decode(self, spec: Mapping[str, Any], value: int | None, bits: Any) -> Any:
        pair = self._value_of(spec, value, bits)
        return [pair >> 1, pair & 1]

    def array(
        self, spec: Mapping[str, Any], rows: Sequence[tuple[Any, Any]]
    ) -> AnyArray:
        values = self._values(spec, rows)
        pairs: AnyArray = np.stack([values >> 1, values & 1], axis=1)
        return pairs


class HadamardResponse(FrequencyOracle):
    """Report a uniformly random row j and the (possibly flipped) bit H[j, x].

    Notes
    -----
    With ``s = [popcount(j AND x) even]`` the report ``(j, bit)`` keeps s w.p.
    ``P/(P + F)``.  It supports v iff ``bit = s(j, v)``, so ``p* = P/(P + F)``
    and ``q* = 1/2`` (rows of H are orthogonal); ``ε' = ln(P/F)``.
    Per-report variance ``(1 − c^2 f^2)/c^2`` with ``c = 2 p* − 1``.
    Support counts: ``C_v = (n + (H T)_v)/2``, ``T_j = Σ_{i: j_i = j} (2 bit_i − 1)``.

    References
    ----------
    .. [1] G. Cormode, T. Kulkarni, D. Srivastava, SIGMOD 2018.
    .. [2] J. Acharya, Z. Sun, H. Zhang, "Hadamard response", AISTATS 2019.
    .. [3] docs/maths.md, section 3.
    """

    name = "hadamard"
    label = gettext_noop("Hadamard response")
    kinds = (SINGLE_CHOICE, ORDINAL)
    storage = PairStorage()
    support_words = "reports whose bit equals 1 if popcount(j AND v) is even, else 0"
    r_estimator = R_ESTIMATOR

    def report_words(self, report: Any) -> Words:
        """A random group of answers and a randomized yes/no about it."""
        return Words(
            gettext_noop(
                "a randomized yes or no about a random group of answers, never "
                "one answer"
            )
        )

    def r_arguments(self) -> dict[str, Any]:
        """Only ``simplex``: the rows and bits carry everything else."""
        return {"simplex": True}

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """``(k, False)``: a report supports about half the answers."""
        return int(params["k"]), False

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        return pair_ratio(spec["weights"]["keep"], spec["weights"]["flip"])

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device reports one randomized bit of a Hadamard code of the "
                "answer (Hadamard response: fastest to analyse for many options)."
            )
        )

    def support_rows(self, reports: AnyArray) -> AnyArray:
        """``S[i, v] = [bit_i = 1 − parity(j_i AND v)]``."""
        values = np.arange(self.k, dtype=np.int64)
        j, bit = reports[:, 0].astype(np.int64), reports[:, 1].astype(np.int64)
        rows: AnyArray = bit[:, None] == _parity_bit(j[:, None], values[None, :])
        return rows

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """The row ``j`` and the reported bit."""
        return (
            ExportColumn("_j", "Hadamard row j"),
            ExportColumn("_bit", "reported bit", value_labels=BIT_LABELS),
        )

    @property
    def order(self) -> int:
        """``K``: the least power of two ``>= k``.

        Returns
        -------
        int
            ``2^ceil(log2 k)``.

        Notes
        -----
        Rows ``j`` of the ``K × K`` Sylvester–Hadamard matrix are drawn uniformly.

        References
        ----------
        .. [1] Cormode et al., SIGMOD 2018.
        """
        return 1 << (self.k - 1).bit_length()

    def _derive_weights(self) -> dict[str, int]:
        keep, flip = keep_other_weights(self._params["epsilon"], 2)
        return {"K": self.order, "keep": keep, "flip": flip}

    def _exact_epsilon(self) -> Decimal:
        return log_ratio(self.weights["keep"], self.weights["flip"])

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        p = self.weights["keep"] / (self.weights["keep"] + self.weights["flip"])
        return np.full(self.k, p), np.full(self.k, 0.5)

    def randomize_one(self, value: int, draw: Draw | None = None) -> list[int]:
        """Randomize one answer to ``[j, bit]`` (two ``uniform_below`` calls).

        Parameters
        ----------
        value : int
            The true answer in ``[0, k)``.
        draw : callable, optional
            Source of uniform 32-bit words; default: the OS CSPRNG.

        Returns
        -------
        list of int
            ``[j, bit]``.

        Notes
        -----
        ``j = uniform_below(K)``, ``s = [popcount(j AND x) even]``,
        ``v = uniform_below(P + F)``, ``bit = s`` if ``v < P`` else ``1 − s``.

        References
        ----------
        .. [1] Cormode et al., SIGMOD 2018; ldp/spec/README.md.
        """
        x = self._check_value(value)
        draw = secure_words() if draw is None else draw
        j = uniform_below(self.order, draw)
        s = 1 - (bin(j & x).count("1") & 1)
        v = uniform_below(self.weights["keep"] + self.weights["flip"], draw)
        return [j, s if v < self.weights["keep"] else 1 - s]

    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
        """Randomize answers into an ``(n, 2)`` int64 array of ``(j, bit)``.

        Parameters
        ----------
        values : array_like of int
            True answers in ``[0, k)``.
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray of int64, shape (n, 2)
            One ``(j, bit)`` row per answer.

        Notes
        -----
        Same channel as ``randomize_one``, drawn with ``rng.integers``.

        References
        ----------
        .. [1] Cormode et al., SIGMOD 2018.
        """
        x = self._check_values(values)
        j = rng.integers(0, self.order, size=x.size, dtype=np.int64)
        s = _parity_bit(j, x)
        total = self.weights["keep"] + self.weights["flip"]
        v = rng.integers(0, total, size=x.size, dtype=np.int64)
        bit = np.where(v < self.weights["keep"], s, 1 - s)
        return np.stack([j, bit], axis=1).astype(np.int64)

    def validate_report(self, report: Any) -> None:
        """Accept ``[j, bit]`` with ``j`` in ``[0, K)`` and bit 0 or 1.

        Parameters
        ----------
        report : object
            One report as decoded from JSON.

        Raises
        ------
        ValueError
            Naming the bad value and what is allowed.  Booleans are not ints.

        Notes
        -----
        The report is ``[j, bit]``, ``K`` the least power of two ``>= k``.

        References
        ----------
        .. [1] docs/maths.md, section 10; ldp/spec/README.md.
        """
        if not isinstance(report, list) or len(report) != 2:
            raise ValueError(f"hadamard report is {report!r}; allowed: a list [j, bit]")
        self._int_in("j", report[0], self.order)
        self._int_in("bit", report[1], 2)

    def _array_from_reports(self, reports: list[Any]) -> AnyArray:
        return np.asarray(reports, dtype=np.int64).reshape(-1, 2)

    def _check_array(self, array: AnyArray) -> AnyArray:
        if array.ndim != 2 or array.shape[1] != 2:
            raise ValueError("hadamard reports must have shape (n, 2)")
        if array.size and array.dtype.kind not in "iu":
            raise ValueError("hadamard reports must be integers")
        return array.astype(np.int64, copy=False)

    def _support_counts(self, array: AnyArray) -> IntArray:
        """``C_v = (n + (H T)_v)/2`` by one fast Walsh–Hadamard transform.

        One ``np.bincount`` of ``2 j + bit`` gives, per row j, the reports with
        bit 0 and with bit 1 (``T_j`` is their difference); the range check
        (``j`` in ``[0, K)``, bit 0 or 1, as unsigned words so negatives fail)
        runs block by block right before the block is counted.
        """
        order = self.order
        pairs = np.zeros(2 * order, dtype=np.int64)
        unsigned = array.view(np.uint64)
        for start in range(0, array.shape[0], _BLOCK_ROWS):
            block = unsigned[start : start + _BLOCK_ROWS]
            if block[:, 0].max() >= order or block[:, 1].max() > 1:
                raise ValueError(f"hadamard reports need j in [0, {order}) and bit 0/1")
            index = np.left_shift(array[start : start + _BLOCK_ROWS, 0], 1)
            np.add(index, array[start : start + _BLOCK_ROWS, 1], out=index)
            pairs += np.bincount(index, minlength=2 * order)
        by_row = pairs.reshape(order, 2)
        transformed = walsh_hadamard(by_row[:, 1] - by_row[:, 0])[: self.k]
        counts: IntArray = (array.shape[0] + transformed) // 2
        return counts
