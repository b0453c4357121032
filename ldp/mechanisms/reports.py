"""Report handling shared by every mechanism: validation and support counts."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.counts import SupportCounts
from ldp.mechanisms.storage import ReportStorage
from ldp.spec.validation import is_int

_LANE_ROWS = 255
"""Rows summed per byte lane: 255 bits of 0/1 never carry out of a byte."""
_HIGH_BITS = np.uint64(0xFEFE_FEFE_FEFE_FEFE)
"""Every bit of a 64-bit word except the lowest bit of each byte."""
_BLOCK_BYTES = 1 << 18
"""Bytes of reports handled per step: the step's second pass reads from cache."""


def bit_column_counts(bits: AnyArray) -> IntArray | None:
    """Column sums of an ``(n, k)`` 0/1 matrix, or None if an entry is not 0 or 1.

    Parameters
    ----------
    bits : ndarray, shape (n, k)
        Integer or boolean reports, one row per report.

    Returns
    -------
    ndarray of int64, shape (k,), or None
        ``C_v = Σ_i bits[i, v]``; None (and nothing counted) as soon as an entry
        outside ``{0, 1}`` is met.

    Notes
    -----
    Rows are read as 64-bit words of eight byte lanes.  Summing at most 255
    rows of bytes that are each 0 or 1 never carries out of a lane, so one
    64-bit addition adds eight columns at once (SWAR, "broadword" arithmetic);
    the lane sums of 255 rows are widened to int64 counts 64 at a time.  The
    0/1 check is folded into the same step: the OR of a block's words has a bit
    of ``0xFEFE…FE`` set iff some byte is above 1.  Blocks of about 256 KiB keep
    the second read in cache, so the reports are read from memory once and no
    temporary larger than a block is made.  Integer dtypes wider than a byte
    are range-checked block by block before they are narrowed; a width that is
    not a multiple of 8 is padded with zero columns block by block.

    References
    ----------
    .. [1] D. E. Knuth, The Art of Computer Programming, vol. 4A, section
       7.1.3 (broadword computing).
    .. [2] Wang et al., USENIX Security 2017, section 4.3 (unary support counts).
    .. [3] docs/maths.md, section 3.8.

    Examples
    --------
    >>> bit_column_counts(np.array([[1, 0, 1], [1, 1, 0]], dtype=np.uint8))
    array([2, 1, 1])
    >>> bit_column_counts(np.array([[2, 0, 1]], dtype=np.uint8)) is None
    True
    """
    n, k = bits.shape
    counts = np.zeros(k, dtype=np.int64)
    if n == 0 or k == 0:
        return counts
    width = -(-k // 8) * 8
    direct = (
        bits.dtype in (np.uint8, np.bool_) and width == k and bits.flags.c_contiguous
    )
    rows = max(1, _BLOCK_BYTES // (_LANE_ROWS * width)) * _LANE_ROWS
    all_words = bits.view(np.uint64) if direct else None
    padded = np.zeros((0 if direct else min(rows, n), width), dtype=np.uint8)
    sums = _LaneSums(width)
    for start in range(0, n, rows):
        if all_words is not None:
            words = all_words[start : start + rows]
        else:
            chunk = bits[start : start + rows]
            if chunk.dtype not in (np.uint8, np.bool_) and (
                chunk.min() < 0 or chunk.max() > 1
            ):
                return None
            padded[: chunk.shape[0], :k] = chunk
            words = padded[: chunk.shape[0]].view(np.uint64)
        if np.bitwise_or.reduce(words, axis=None) & _HIGH_BITS:
            return None
        sums.add(words)
    return sums.total()[:k]


class _LaneSums:
    """Byte-lane sums of 255 rows at a time, widened to int64 in batches."""

    BATCH = 64

    def __init__(self, width: int) -> None:
        self.width = width
        self.lanes = np.empty((self.BATCH, width // 8), dtype=np.uint64)
        self.filled = 0
        self.counts = np.zeros(width, dtype=np.int64)

    def add(self, words: AnyArray) -> None:
        """Add rows of 0/1 bytes held as ``(m, width/8)`` words."""
        for start in range(0, words.shape[0], _LANE_ROWS):
            np.add.reduce(
                words[start : start + _LANE_ROWS], axis=0, out=self.lanes[self.filled]
            )
            self.filled += 1
            if self.filled == self.BATCH:
                self._widen()

    def _widen(self) -> None:
        filled = self.lanes[: self.filled].view(np.uint8)
        self.counts += np.add.reduce(filled, axis=0, dtype=np.int64)
        self.filled = 0

    def total(self) -> IntArray:
        """The int64 column sums of every row added."""
        self._widen()
        return self.counts


def packed_bit_column_counts(packed: AnyArray, k: int) -> IntArray | None:
    """Column sums of ``np.packbits(bits, axis=1)`` rows; None if padding is set.

    Parameters
    ----------
    packed : ndarray of uint8, shape (n, ceil(k / 8))
        Each row the k bits of one report packed big-endian, eight to a byte,
        the last byte padded with zero bits (``np.packbits`` layout).
    k : int
        Number of bits per report.

    Returns
    -------
    ndarray of int64, shape (k,), or None
        ``C_v = Σ_i bit v of row i``, equal to :func:`bit_column_counts` of the
        unpacked rows; None if a padding bit is 1.

    Notes
    -----
    A block of about 256 KiB of unpacked rows is unpacked at a time
    (``np.unpackbits``), so memory stays near the packed input (k/8 bytes per
    report), and summed eight columns per 64-bit word as in
    :func:`bit_column_counts`.

    References
    ----------
    .. [1] D. E. Knuth, The Art of Computer Programming, vol. 4A, section 7.1.3.
    .. [2] docs/maths.md, section 3.8.

    Examples
    --------
    >>> packed = np.packbits(np.array([[1, 0, 1], [1, 1, 0]], dtype=np.uint8), axis=1)
    >>> packed_bit_column_counts(packed, 3)
    array([2, 1, 1])
    """
    n = packed.shape[0]
    counts = np.zeros(k, dtype=np.int64)
    if n == 0 or k == 0:
        return counts
    spare = packed.shape[1] * 8 - k
    if spare and np.bitwise_or.reduce(packed[:, -1]) & ((1 << spare) - 1):
        return None
    width = -(-k // 8) * 8
    rows = max(1, _BLOCK_BYTES // (_LANE_ROWS * width)) * _LANE_ROWS
    sums = _LaneSums(width)
    for start in range(0, n, rows):
        sums.add(np.unpackbits(packed[start : start + rows], axis=1).view(np.uint64))
    return sums.total()[:k]


def bounded_bincount(indices: AnyArray, high: int) -> IntArray | None:
    """``np.bincount(indices, minlength=high)``, or None if an index is out of range.

    Parameters
    ----------
    indices : ndarray of int64, shape (n,)
        Report indices.
    high : int
        Number of bins.

    Returns
    -------
    ndarray of int64, shape (high,), or None
        ``c_y = #{i : indices[i] = y}``; None if some index is negative or
        ``>= high`` (checked before counting, so a huge index allocates nothing).

    Notes
    -----
    Read as unsigned 64-bit words, a negative int64 is at least ``2^63``, so
    ``0 <= x < high`` for every x iff the unsigned maximum is below ``high``:
    one pass, done per cache-sized block right before that block is counted.

    References
    ----------
    .. [1] docs/maths.md, sections 3.1 and 3.8 (report histogram).

    Examples
    --------
    >>> bounded_bincount(np.array([0, 2, 2]), 3)
    array([1, 0, 2])
    >>> bounded_bincount(np.array([0, -1]), 3) is None
    True
    """
    counts = np.zeros(high, dtype=np.int64)
    unsigned = indices.view(np.uint64)
    step = _BLOCK_BYTES // 8
    for start in range(0, indices.shape[0], step):
        if unsigned[start : start + step].max() >= high:
            return None
        counts += np.bincount(indices[start : start + step], minlength=high)
    return counts


class ReportHandling:
    """Turn validated reports into support counts.

    Mixed into :class:`ldp.mechanisms.base.Mechanism`, which provides ``name``
    and ``spec``.
    """

    name: ClassVar[str]
    storage: ClassVar[ReportStorage]
    one_answer_reports: ClassVar[bool] = False
    """True when a report is one answer, so the counts are a multinomial."""

    @property
    @abstractmethod
    def spec(self) -> dict[str, Any]:
        """The compiled spec that support counts are tagged with.

        Returns
        -------
        dict
            See :attr:`ldp.mechanisms.base.Mechanism.spec`.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "warner", "epsilon": 1.0}).spec["mechanism"]
        'warner'
        """

    @abstractmethod
    def validate_report(self, report: Any) -> None:
        """Raise ValueError unless ``report`` is a possible output (JSON form).

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
        Only possible outputs of the randomizer are accepted, which limits what
        a fake respondent can inject.

        References
        ----------
        .. [1] docs/maths.md, section 10 (manipulation).

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.validate_report(2)
        >>> grr.validate_report(3)
        Traceback (most recent call last):
        ...
        ValueError: grr report value is 3; allowed: an integer in [0, 3)
        """

    @abstractmethod
    def _array_from_reports(self, reports: list[Any]) -> AnyArray: ...

    @abstractmethod
    def _check_array(self, array: AnyArray) -> AnyArray: ...

    @abstractmethod
    def _support_counts(self, array: AnyArray) -> IntArray: ...

    def _int_in(self, what: str, value: Any, high: int) -> int:
        if not is_int(value) or not 0 <= value < high:
            raise ValueError(
                f"{self.name} report {what} is {value!r}; allowed: an integer in "
                f"[0, {high})"
            )
        return value

    def reports_to_array(self, reports: list[Any]) -> AnyArray:
        """Validate JSON reports and stack them into the array form of ``randomize``.

        Parameters
        ----------
        reports : list
            JSON reports as received.

        Returns
        -------
        ndarray
            The same layout ``randomize`` returns.

        Notes
        -----
        Each report is checked by :meth:`validate_report`; one bad report
        rejects the batch.

        References
        ----------
        .. [1] docs/maths.md, section 10 (validate every report).

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.reports_to_array([0, 2, 1])
        array([0, 2, 1])
        """
        if not isinstance(reports, (list, tuple)):
            raise ValueError(f"reports must be a list, got {type(reports).__name__}")
        for report in reports:
            self.validate_report(report)
        return self._array_from_reports(list(reports))

    def aggregate(self, reports: Any) -> SupportCounts:
        """Count, for every answer v, the reports that support v.

        Parameters
        ----------
        reports : ndarray or list
            Output of ``randomize`` or a list of JSON reports.

        Returns
        -------
        SupportCounts
            ``n`` and ``C_v``; aggregates of disjoint batches add up.

        Notes
        -----
        ``C_v = Σ_i 1[report i supports v] ~ Binomial(n, λ_v)``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 3 (pure protocols).

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> stat = grr.aggregate([0, 2, 2, 1, 2])
        >>> stat.n, stat.counts
        (5, array([1, 1, 3]))
        """
        if isinstance(reports, (list, tuple)):
            array = self.reports_to_array(list(reports))
        else:
            array = self._check_array(np.asarray(reports))
        counts = self._support_counts(array).astype(np.int64)
        return SupportCounts(int(array.shape[0]), counts, self.spec)

    def aggregate_stored(self, rows: Sequence[tuple[Any, Any]]) -> SupportCounts:
        """Support counts of reports stored as ``(value, bits)`` rows.

        Parameters
        ----------
        rows : sequence of (value, bits)
            The stored columns of reports of this spec (``storage.encode``).

        Returns
        -------
        SupportCounts
            Equal to :meth:`aggregate` of the decoded JSON reports.

        Raises
        ------
        ValueError
            For a row not of this mechanism's stored form, or an impossible
            report.

        Notes
        -----
        The rows become the array ``aggregate`` counts without building JSON
        (``storage.array``); reports of k bits are counted packed.

        References
        ----------
        .. [1] docs/maths.md, section 3.8.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.aggregate_stored([(2, None), (0, None), (2, None)]).counts
        array([1, 0, 2])
        """
        return self.aggregate(self.storage.array(self.spec, rows))
