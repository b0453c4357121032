"""Support counts: the sufficient statistic every mechanism aggregates to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import IntArray


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
            If a count is negative or above ``n``.

        Notes
        -----
        Each ``C_v`` must satisfy ``0 <= C_v <= n``.

        References
        ----------
        .. [1] docs/maths.md, section 3.

        Examples
        --------
        >>> data = {"n": 3, "counts": [1, 2], "spec": {"mechanism": "warner"}}
        >>> SupportCounts.from_dict(data).counts
        array([1, 2])
        """
        counts = np.asarray(data["counts"], dtype=np.int64)
        n = int(data["n"])
        if counts.ndim != 1 or np.any(counts < 0) or np.any(counts > n):
            raise ValueError(f"counts must be integers in [0, n={n}], got {data!r}")
        return cls(n, counts, dict(data["spec"]))
