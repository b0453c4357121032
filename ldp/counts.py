"""Support counts: the sufficient statistic every mechanism aggregates to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import IntArray
from ldp.spec import families
from ldp.spec.validation import is_int, validate_spec


def counts_layout(spec: Any) -> tuple[int, bool]:
    """How many counts a spec's aggregate has, and whether they sum to n.

    Parameters
    ----------
    spec : mapping
        A compiled spec (``Mechanism.spec``).

    Returns
    -------
    length : int
        ``k`` for answers counted by support (unary, OLH, Hadamard, multi_rr)
        and for histograms of one answer (binary, GRR, ordinal); ``k + ℓ``
        for padding-and-sampling's items; the grid's ``m`` levels for
        geometric and Gaussian, 2 for Duchi and the ``outputs`` weight ``M``
        for piecewise: each family's ``counts_layout``.
    histogram : bool
        True when the counts are a histogram of the ``n`` reports (so they
        sum to ``n``); False when each is a support count ``0 <= C_v <= n``.

    Raises
    ------
    ValueError
        For an invalid spec, or a piecewise spec without its weights.

    Notes
    -----
    Read from the spec alone (validated, never compiled), so checking stored
    counts costs no calibration.

    References
    ----------
    .. [1] docs/maths.md, section 3 (support counts); ldp/spec/README.md.
    """
    params, weights = validate_spec(spec)
    return families.rules(params["mechanism"]).counts_layout(params, weights)


def check_counts(n: Any, counts: Any, spec: Any, *, totals: bool = True) -> IntArray:
    """Check counts against their spec and return them as int64.

    Parameters
    ----------
    n : int
        Number of reports.
    counts : array_like of int
        ``C_v`` (or ``c_y``).
    spec : mapping
        The compiled spec the reports were made under.
    totals : bool, optional
        Also require a report histogram to sum to ``n`` (default).  Loading
        stored counts skips this one check, so a tally damaged that way can
        still be read and reported; every estimate makes it.

    Returns
    -------
    ndarray of int64
        The counts.

    Raises
    ------
    ValueError
        Naming what is wrong: ``n`` not an integer ``>= 0``; counts not a
        flat list of integers (floats, booleans, strings refused); a length
        other than :func:`counts_layout`'s; a count below 0 or above ``n``;
        or (``totals``) a histogram that does not sum to ``n``.

    Notes
    -----
    Support counts satisfy ``0 <= C_v <= n``; a histogram of ``n`` reports
    also satisfies ``Σ_y c_y = n``.

    References
    ----------
    .. [1] docs/maths.md, section 3.
    """
    if not is_int(n) and not (isinstance(n, np.integer)):
        raise ValueError(f"support counts: 'n' must be an integer, got {n!r}")
    n = int(n)
    if n < 0:
        raise ValueError(f"support counts: 'n' is {n}; allowed: n >= 0")
    listed = isinstance(counts, (list, tuple))
    if listed and not all(is_int(count) for count in counts):
        raise ValueError(
            f"support counts: 'counts' must be a flat list of integers, got {counts!r}"
        )
    array = np.asarray(counts)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(
            f"support counts: 'counts' must be a flat list of integers, got {counts!r}"
        )
    length, histogram = counts_layout(spec)
    if array.size != length:
        raise ValueError(
            f"support counts: {array.size} counts for a {spec.get('mechanism')} "
            f"spec that aggregates to {length}"
        )
    array = array.astype(np.int64)
    if np.any(array < 0) or np.any(array > n):
        raise ValueError(f"support counts: counts must lie in [0, n={n}]")
    if totals and histogram and int(array.sum()) != n:
        raise ValueError(
            f"support counts: the {length} counts of a report histogram sum to "
            f"{int(array.sum())}, not to n={n}"
        )
    return array


@dataclass(frozen=True, eq=False)
class SupportCounts:
    """The sufficient statistic of a mechanism: n and the counts C_v.

    For a frequency oracle ``C_v`` is the number of reports that support
    answer ``v``, exactly Binomial(n, λ_v); for a finite channel it is the
    report histogram ``c_y``.  Aggregates of disjoint report sets add up.

    Attributes
    ----------
    n : int
        Number of reports.
    counts : ndarray of int64
        ``C_v`` (or ``c_y``).
    spec : dict
        The compiled spec the reports were made under.

    Examples
    --------
    >>> spec = {"mechanism": "warner"}
    >>> total = SupportCounts(3, np.array([1, 2]), spec) + SupportCounts(
    ...     2, np.array([2, 0]), spec)
    >>> total.n, total.counts
    (5, array([3, 2]))
    """

    n: int
    counts: IntArray
    spec: dict[str, Any]

    def __add__(self, other: object) -> SupportCounts:
        if not isinstance(other, SupportCounts):
            return NotImplemented
        if other.spec != self.spec:
            raise ValueError("cannot add support counts of different specs")
        return SupportCounts(self.n + other.n, self.counts + other.counts, self.spec)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SupportCounts):
            return NotImplemented
        return (
            self.n == other.n
            and self.spec == other.spec
            and np.array_equal(self.counts, other.counts)
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict ``{"n", "counts", "spec"}``.

        Returns
        -------
        dict
            Plain ints and the compiled spec.

        Notes
        -----
        ``C_v`` of disjoint batches add: store per batch, sum later.

        References
        ----------
        .. [1] docs/maths.md, section 3.

        Examples
        --------
        >>> SupportCounts(3, np.array([1, 2]), {"mechanism": "warner"}).to_dict()
        {'n': 3, 'counts': [1, 2], 'spec': {'mechanism': 'warner'}}
        """
        return {"n": self.n, "counts": [int(c) for c in self.counts], "spec": self.spec}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SupportCounts:
        """Rebuild support counts from :meth:`to_dict` output.

        Parameters
        ----------
        data : dict
            ``{"n": int, "counts": [int, ...], "spec": dict}``.

        Returns
        -------
        SupportCounts
            The same aggregate.

        Raises
        ------
        ValueError
            For anything :func:`check_counts` refuses: ``n`` not an integer
            ``>= 0``, counts that are not integers, of the wrong length for
            the spec, negative or above ``n``.

        Notes
        -----
        Each ``C_v`` must satisfy ``0 <= C_v <= n``.  That a report
        histogram sums to ``n`` is checked by every estimate, not here, so
        a stored tally damaged that way can still be loaded and compared
        with a recount.

        References
        ----------
        .. [1] docs/maths.md, section 3.

        Examples
        --------
        >>> spec = {"mechanism": "warner", "epsilon": 1.0}
        >>> data = {"n": 3, "counts": [1, 2], "spec": spec}
        >>> SupportCounts.from_dict(data).counts
        array([1, 2])
        """
        if not isinstance(data, Mapping) or set(data) != {"n", "counts", "spec"}:
            raise ValueError(
                "support counts must be an object with exactly 'n', 'counts' and "
                f"'spec', got {data!r}"
            )
        if not isinstance(data["spec"], Mapping):
            raise ValueError(f"support counts: 'spec' must be an object, got {data!r}")
        counts = check_counts(data["n"], data["counts"], data["spec"], totals=False)
        return cls(int(data["n"]), counts, dict(data["spec"]))
