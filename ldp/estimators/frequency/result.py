"""The result of a frequency oracle: :class:`FrequencyEstimate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators import consistency
from ldp.estimators.frequency.formulas import (
    CONSISTENT_METHODS,
    METHODS,
    confidence_bounds,
    standard_error,
    unbiased,
)
from ldp.estimators.intervals import ConfidenceInterval
from ldp.estimators.mean import MeanEstimate


@dataclass(frozen=True, eq=False)
class FrequencyEstimate:
    """Unbiased frequency estimates with standard errors and intervals.

    Implements :class:`ldp.estimators.base.Estimate`.

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
    identifiable, sums_to_one : bool
        Always True: every share is recovered, and they sum to 1 in
        expectation.
    interval_methods : tuple of str
        ``("exact", "wilson", "wald")``, the first being the default.
    consistent_methods : tuple of str
        ``("norm-sub", "mle")``, the first being the default.

    Examples
    --------
    >>> est = frequency_estimate(
    ...     np.array([600, 400]), 1000, np.array([0.75, 0.75]),
    ...     np.array([0.25, 0.25]), mechanism="forced_response", epsilon=1.1)
    >>> est.estimate
    array([0.7, 0.3])
    >>> est.mean() is None
    True
    """

    n: int
    estimate: FloatArray
    standard_error: FloatArray
    counts: IntArray
    mechanism: str
    epsilon: float
    p_star: FloatArray = field(repr=False)
    q_star: FloatArray = field(repr=False)
    multinomial: bool = field(default=False, repr=False)

    identifiable: ClassVar[bool] = True
    sums_to_one: ClassVar[bool] = True
    interval_methods: ClassVar[tuple[str, ...]] = METHODS
    consistent_methods: ClassVar[tuple[str, ...]] = CONSISTENT_METHODS

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str | None = None,
        simultaneous: bool = False,
    ) -> ConfidenceInterval[FloatArray]:
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

        Raises
        ------
        ValueError
            For an unknown method or a level outside (0, 1).

        Notes
        -----
        ``C_v ~ Binomial(n, λ_v)``, ``λ_v = q_v + f_v (p_v − q_v)``.  Exact and
        Wilson intervals for ``λ_v`` are mapped through ``(λ − q_v)/(p_v − q_v)``
        and clipped to [0, 1]; Wald is not clipped; none has zero width
        (:func:`ldp.estimators.frequency.formulas.confidence_bounds`).

        References
        ----------
        .. [1] C. J. Clopper, E. S. Pearson, Biometrika 26(4), 1934.
        .. [2] E. B. Wilson, JASA 22(158), 1927.
        .. [3] docs/maths.md, sections 2 and 3.

        Examples
        --------
        >>> est = frequency_estimate(
        ...     np.array([600, 400]), 1000, np.array([0.75, 0.75]),
        ...     np.array([0.25, 0.25]), mechanism="forced_response", epsilon=1.1)
        >>> est.confidence_interval(0.95, "wald").low.round(3)
        array([0.639, 0.239])
        """
        low, high = confidence_bounds(
            self.counts,
            self.n,
            self.p_star,
            self.q_star,
            level=level,
            method=method or self.interval_methods[0],
            simultaneous=simultaneous,
        )
        return ConfidenceInterval(low, high)

    def consistent(self, method: str | None = None) -> FloatArray:
        """A consistent estimate: non-negative shares summing to 1.

        Parameters
        ----------
        method : {"norm-sub", "mle"}, optional
            ``"norm-sub"`` (default): Euclidean projection of ``f̂`` onto the
            simplex.  ``"mle"``: for mechanisms whose report is one answer
            (binary, GRR) the exact multinomial maximum-likelihood estimate,
            i.e. the fixed point of EM / iterative Bayesian update on the
            channel matrix (computed in closed form by water-filling); for the
            other oracles the maximiser over the simplex of the binomial
            support-count likelihood ``Σ_v C_v log λ_v + (n − C_v) log(1 − λ_v)``
            (a composite likelihood: the C_v are not independent).

        Returns
        -------
        ndarray
            Shares of length k, each ``>= 0``, summing to 1.

        Raises
        ------
        ValueError
            For an unknown method.

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
        .. [3] docs/maths.md, section 6.

        Examples
        --------
        >>> est = frequency_estimate(
        ...     np.array([980, 20]), 1000, np.array([0.75, 0.75]),
        ...     np.array([0.25, 0.25]), mechanism="forced_response", epsilon=1.1)
        >>> est.estimate.round(2)
        array([ 1.46, -0.46])
        >>> est.consistent()
        array([1., 0.])
        """
        method = method or self.consistent_methods[0]
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

    def mean(self) -> MeanEstimate | None:
        """None: the answers of a frequency oracle are categories, not values.

        Returns
        -------
        None
            Always.

        See Also
        --------
        ldp.estimators.channel.ChannelEstimate.mean : Where answers have values.

        Examples
        --------
        >>> est = frequency_estimate(
        ...     np.array([6, 4]), 10, np.array([0.75, 0.75]),
        ...     np.array([0.25, 0.25]), mechanism="warner", epsilon=1.1)
        >>> print(est.mean())
        None
        """
        return None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict of the estimate, its SE and the counts.

        Returns
        -------
        dict
            ``n``, ``mechanism``, ``epsilon``, ``estimate``, ``standard_error``,
            ``counts`` as plain Python numbers.

        Notes
        -----
        ``f̂_v = (C_v/n − q_v)/(p_v − q_v)``,
        ``SE = sqrt(λ̂(1 − λ̂)/n)/(p − q)``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.

        Examples
        --------
        >>> est = frequency_estimate(
        ...     np.array([6, 4]), 10, np.array([0.75, 0.75]),
        ...     np.array([0.25, 0.25]), mechanism="warner", epsilon=1.1)
        >>> est.to_dict()["counts"]
        [6, 4]
        """
        return {
            "n": self.n,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "estimate": [float(x) for x in self.estimate],
            "standard_error": [float(x) for x in self.standard_error],
            "counts": [int(c) for c in self.counts],
        }


def frequency_estimate(
    counts: IntArray,
    n: int,
    p: FloatArray,
    q: FloatArray,
    *,
    mechanism: str,
    epsilon: float,
    multinomial: bool = False,
) -> FrequencyEstimate:
    """Unbiased frequency estimates of one aggregate.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v``.
    n : int
        Number of reports (``> 0``).
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.
    mechanism : str
        Mechanism name (recorded).
    epsilon : float
        Delivered ε (recorded).
    multinomial : bool, optional
        True when each report is one answer (enables the exact MLE).

    Returns
    -------
    FrequencyEstimate
        ``f̂_v``, standard errors, intervals and consistent estimates.

    Notes
    -----
    ``f̂_v = (C_v/n − q_v)/(p_v − q_v)``,
    ``SE = sqrt(λ̂(1 − λ̂)/n)/(p_v − q_v)``.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4.
    .. [2] docs/maths.md, section 3.

    Examples
    --------
    >>> est = frequency_estimate(
    ...     np.array([6, 4]), 10, np.array([0.75, 0.75]),
    ...     np.array([0.25, 0.25]), mechanism="warner", epsilon=1.1)
    >>> est.estimate
    array([0.7, 0.3])
    """
    return FrequencyEstimate(
        n=n,
        estimate=unbiased(counts, n, p, q),
        standard_error=standard_error(counts, n, p, q),
        counts=np.asarray(counts, dtype=np.int64).copy(),
        mechanism=mechanism,
        epsilon=epsilon,
        p_star=p,
        q_star=q,
        multinomial=multinomial,
    )
