"""Result objects: support counts, frequency estimates and intervals.

Modelled on SciPy's result objects: plain fields plus methods such as
``confidence_interval()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ldp.estimators import consistency, frequency


@dataclass(frozen=True, eq=False)
class ConfidenceInterval:
    """Per-value lower and upper confidence bounds (arrays of length k)."""

    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class SupportCounts:
    """The sufficient statistic of a frequency oracle: n and the counts C_v.

    ``C_v`` is the number of reports that support answer ``v``; it is exactly
    Binomial(n, λ_v).  Aggregates of disjoint report sets add up.
    """

    n: int
    counts: np.ndarray
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

    __hash__ = None  # type: ignore[assignment]

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
        .. [1] Deniable LDP primer, section 3.
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
        .. [1] Deniable LDP primer, section 3.
        """
        counts = np.asarray(data["counts"], dtype=np.int64)
        n = int(data["n"])
        if counts.ndim != 1 or np.any(counts < 0) or np.any(counts > n):
            raise ValueError(f"counts must be integers in [0, n={n}], got {data!r}")
        return cls(n, counts, dict(data["spec"]))


@dataclass(frozen=True, eq=False)
class FrequencyEstimate:
    """Unbiased frequency estimates with standard errors and intervals.

    Attributes
    ----------
    n : int
        Number of reports.
    estimate : ndarray
        ``f̂_v = (C_v/n − q_v)/(p_v − q_v)``; may lie outside [0, 1].
    standard_error : ndarray
        Plug-in ``sqrt(λ̂_v(1 − λ̂_v)/n)/(p_v − q_v)``, ``λ̂_v = C_v/n``.
    counts : ndarray
        The support counts ``C_v``.
    mechanism : str
        Mechanism family name.
    epsilon : float
        Delivered ε (rounded up).
    p_star, q_star : ndarray
        Realised support probabilities of the integer weights.
    multinomial : bool
        True when each report is one answer (binary, GRR): the counts are then
        a multinomial histogram and ``consistent("mle")`` is the exact MLE.
    """

    n: int
    estimate: np.ndarray
    standard_error: np.ndarray
    counts: np.ndarray
    mechanism: str
    epsilon: float
    p_star: np.ndarray = field(repr=False)
    q_star: np.ndarray = field(repr=False)
    multinomial: bool = field(default=False, repr=False)

    def confidence_interval(
        self, level: float = 0.95, method: str = "exact", simultaneous: bool = False
    ) -> ConfidenceInterval:
        """Confidence intervals for every answer's share.

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.
        method : {"exact", "wilson", "wald"}, optional
            Clopper–Pearson (default), Wilson score, or Wald ``f̂ ± z·SE``.
        simultaneous : bool, optional
            Bonferroni: each interval at ``1 − α/k`` so all k hold jointly.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays of length k.

        Notes
        -----
        ``C_v ~ Binomial(n, λ_v)``, ``λ_v = q_v + f_v (p_v − q_v)``.  Exact and
        Wilson intervals for ``λ_v`` are mapped through ``(λ − q_v)/(p_v − q_v)``
        and clipped to [0, 1]; Wald is not clipped.

        References
        ----------
        .. [1] C. J. Clopper, E. S. Pearson, Biometrika 26(4), 1934.
        .. [2] E. B. Wilson, JASA 22(158), 1927.
        .. [3] Deniable LDP primer, sections 2 and 3.
        """
        low, high = frequency.confidence_bounds(
            self.counts,
            self.n,
            self.p_star,
            self.q_star,
            level=level,
            method=method,
            simultaneous=simultaneous,
        )
        return ConfidenceInterval(low, high)

    def consistent(self, method: str = "norm-sub") -> np.ndarray:
        """A consistent estimate: non-negative shares summing to 1.

        Parameters
        ----------
        method : {"norm-sub", "mle"}, optional
            ``"norm-sub"``: Euclidean projection of ``f̂`` onto the simplex.
            ``"mle"``: for mechanisms whose report is one answer (binary, GRR)
            the exact multinomial maximum-likelihood estimate, i.e. the fixed
            point of EM / iterative Bayesian update on the channel matrix
            (computed in closed form by water-filling); for the other oracles
            the maximiser over the simplex of the binomial support-count
            likelihood ``Σ_v C_v log λ_v + (n − C_v) log(1 − λ_v)`` (a
            composite likelihood: the C_v are not independent).

        Returns
        -------
        ndarray
            Shares of length k, each ``>= 0``, summing to 1.

        Notes
        -----
        Norm-Sub: ``f̃_v = max(f̂_v + δ, 0)`` with δ such that ``Σ f̃_v = 1``.
        EM: ``f_x ← Σ_y (c_y/n) Q[x,y] f_x / Σ_x' Q[x',y] f_x'``.

        References
        ----------
        .. [1] T. Wang, M. Lopuhaä-Zwakenberg, Z. Li, B. Skoric, N. Li,
           "Locally differentially private frequency estimation with
           consistency", NDSS 2020, section 4.
        .. [2] D. Agrawal, C. C. Aggarwal, PODS 2001 (EM reconstruction).
        .. [3] Deniable LDP primer, section 6.
        """
        if method == "norm-sub":
            return consistency.project_simplex(self.estimate)
        if method == "mle":
            if self.multinomial:
                return consistency.multinomial_mle(
                    self.counts, self.p_star, self.q_star
                )
            return consistency.binomial_mle(
                self.counts, self.n, self.p_star, self.q_star
            )
        raise ValueError(f"method is {method!r}; allowed: 'norm-sub', 'mle'")

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict of the estimate, its SE and the counts.

        Returns
        -------
        dict
            ``n``, ``mechanism``, ``epsilon``, ``estimate``, ``standard_error``,
            ``counts`` as plain Python numbers.

        Notes
        -----
        ``f̂_v = (C_v/n − q_v)/(p_v − q_v)``, ``SE = sqrt(λ̂(1 − λ̂)/n)/(p − q)``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.
        """
        return {
            "n": self.n,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "estimate": [float(x) for x in self.estimate],
            "standard_error": [float(x) for x in self.standard_error],
            "counts": [int(c) for c in self.counts],
        }
