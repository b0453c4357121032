"""The result of a multi-select mechanism: :class:`MultiSelectEstimate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators import frequency
from ldp.estimators.intervals import ConfidenceInterval
from ldp.estimators.mean import MeanEstimate
from ldp.estimators.multiselect.formulas import (
    CONSISTENT_METHODS,
    share_confidence_bounds,
    share_standard_error,
    unbiased_shares,
)


@dataclass(frozen=True, eq=False)
class MultiSelectEstimate:
    """Unbiased estimates of each option's share of respondents selecting it.

    Implements :class:`ldp.estimators.base.Estimate`.  Not a distribution: a
    respondent may select several options, so the shares need not sum to 1
    (``sums_to_one`` is False and no simplex projection applies).

    Attributes
    ----------
    n : int
        Number of reports.
    estimate : ndarray
        ``f̂_v = L (C_v/n − q)/(p − q)`` for the k options; may lie outside
        [0, 1].
    standard_error : ndarray
        Plug-in ``L sqrt(λ̂_v (1 − λ̂_v)/n)/(p − q)``.
    counts : ndarray
        The k options' support counts ``C_v``.
    mechanism : str
        ``"multi_rr"`` or ``"padding_sampling"``.
    epsilon : float
        Delivered total ε of the question (rounded up).
    epsilon_per_option : float
        Delivered ε spent on each option (rounded up).
    scale : int
        ``L``: 1 for ``multi_rr``, ``ℓ`` for ``padding_sampling``.
    p_star, q_star : ndarray
        Realised support probabilities for the k options.
    identifiable : bool
        Always True.
    sums_to_one : bool
        Always False.
    interval_methods : tuple of str
        ``("exact", "wilson", "wald")``, the first being the default.
    consistent_methods : tuple of str
        ``("clip",)``: each share clipped to [0, 1].

    Examples
    --------
    >>> est = multiselect_estimate(
    ...     np.array([30, 60]), 100, np.full(2, 0.75), np.full(2, 0.25),
    ...     scale=1, mechanism="multi_rr", epsilon=2.2, epsilon_per_option=1.1)
    >>> est.estimate
    array([0.1, 0.7])
    >>> est.sums_to_one
    False
    """

    n: int
    estimate: FloatArray
    standard_error: FloatArray
    counts: IntArray
    mechanism: str
    epsilon: float
    epsilon_per_option: float
    scale: int
    p_star: FloatArray = field(repr=False)
    q_star: FloatArray = field(repr=False)

    identifiable: ClassVar[bool] = True
    sums_to_one: ClassVar[bool] = False
    interval_methods: ClassVar[tuple[str, ...]] = frequency.METHODS
    consistent_methods: ClassVar[tuple[str, ...]] = CONSISTENT_METHODS

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str | None = None,
        simultaneous: bool = False,
    ) -> ConfidenceInterval[FloatArray]:
        """Confidence intervals for every option's share.

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
        ``C_v ~ Binomial(n, λ_v)``, ``λ_v = q + (p − q) f_v/L``.  Exact and
        Wilson bounds for ``λ_v`` map through ``L (λ − q)/(p − q)`` and are
        clipped to [0, 1]; Wald is not clipped; none has zero width.

        References
        ----------
        .. [1] C. J. Clopper, E. S. Pearson, Biometrika 26(4), 1934.
        .. [2] Wang et al., IEEE S&P 2018, section 4.
        .. [3] docs/maths.md, sections 2 and 3.

        Examples
        --------
        >>> est = multiselect_estimate(
        ...     np.array([30, 60]), 100, np.full(2, 0.75), np.full(2, 0.25),
        ...     scale=1, mechanism="multi_rr", epsilon=2.2, epsilon_per_option=1.1)
        >>> est.confidence_interval(0.95).high.round(3)
        array([0.3  , 0.893])
        """
        low, high = share_confidence_bounds(
            self.counts,
            self.n,
            self.p_star,
            self.q_star,
            self.scale,
            level=level,
            method=method or self.interval_methods[0],
            simultaneous=simultaneous,
        )
        return ConfidenceInterval(low, high)

    def consistent(self, method: str | None = None) -> FloatArray:
        """The estimates clipped to [0, 1] (post-processing, no privacy cost).

        Parameters
        ----------
        method : {"clip"}, optional
            The only method: shares of respondents need not sum to 1, so the
            consistent estimate is each share clipped to its range.

        Returns
        -------
        ndarray
            ``min(max(f̂_v, 0), 1)``.

        Raises
        ------
        ValueError
            For another method.

        Notes
        -----
        Clipping is the Euclidean projection onto ``[0, 1]^k``; it lowers the
        mean squared error but biases shares near 0 or 1.

        References
        ----------
        .. [1] docs/maths.md, section 1 (post-processing) and section 6.

        Examples
        --------
        >>> est = multiselect_estimate(
        ...     np.array([10, 99]), 100, np.full(2, 0.75), np.full(2, 0.25),
        ...     scale=1, mechanism="multi_rr", epsilon=2.2, epsilon_per_option=1.1)
        >>> est.estimate
        array([-0.3 ,  1.48])
        >>> est.consistent()
        array([0., 1.])
        """
        method = method or self.consistent_methods[0]
        if method != "clip":
            raise ValueError(f"method is {method!r}; allowed: 'clip'")
        return np.clip(self.estimate, 0.0, 1.0)

    def mean(self) -> MeanEstimate | None:
        """None: options are categories, not values.

        Returns
        -------
        None
            Always.

        Examples
        --------
        >>> est = multiselect_estimate(
        ...     np.array([3, 6]), 10, np.full(2, 0.75), np.full(2, 0.25),
        ...     scale=1, mechanism="multi_rr", epsilon=2.2, epsilon_per_option=1.1)
        >>> print(est.mean())
        None
        """
        return None

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict of the estimate, its SE and the counts.

        Returns
        -------
        dict
            ``n``, ``mechanism``, ``epsilon``, ``epsilon_per_option``,
            ``scale``, ``estimate``, ``standard_error``, ``counts`` as plain
            Python numbers.

        Notes
        -----
        ``f̂_v = L (C_v/n − q)/(p − q)``, ``SE = L sqrt(λ̂(1 − λ̂)/n)/(p − q)``.

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.

        Examples
        --------
        >>> est = multiselect_estimate(
        ...     np.array([3, 6]), 10, np.full(2, 0.75), np.full(2, 0.25),
        ...     scale=1, mechanism="multi_rr", epsilon=2.2, epsilon_per_option=1.1)
        >>> est.to_dict()["scale"]
        1
        """
        return {
            "n": self.n,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "epsilon_per_option": self.epsilon_per_option,
            "scale": self.scale,
            "estimate": [float(x) for x in self.estimate],
            "standard_error": [float(x) for x in self.standard_error],
            "counts": [int(c) for c in self.counts],
        }


def multiselect_estimate(
    counts: IntArray,
    n: int,
    p: FloatArray,
    q: FloatArray,
    *,
    scale: int,
    mechanism: str,
    epsilon: float,
    epsilon_per_option: float,
) -> MultiSelectEstimate:
    """Unbiased shares of respondents selecting each option, for one aggregate.

    Parameters
    ----------
    counts : ndarray
        The k options' support counts ``C_v``.
    n : int
        Number of reports (``> 0``).
    p, q : ndarray
        Realised support probabilities of the k options.
    scale : int
        ``L``: 1 for per-option RR, ``ℓ`` for padding-and-sampling.
    mechanism : str
        Mechanism name (recorded).
    epsilon, epsilon_per_option : float
        Delivered total and per-option ε (recorded).

    Returns
    -------
    MultiSelectEstimate
        ``f̂_v``, standard errors and intervals for the k options.

    Notes
    -----
    ``f̂_v = L (C_v/n − q)/(p − q)``, ``SE = L sqrt(λ̂(1 − λ̂)/n)/(p − q)``.

    References
    ----------
    .. [1] Wang et al., IEEE S&P 2018, section 4.
    .. [2] Ú. Erlingsson, V. Pihur, A. Korolova, "RAPPOR", CCS 2014.

    Examples
    --------
    >>> est = multiselect_estimate(
    ...     np.array([30, 60]), 100, np.full(2, 0.75), np.full(2, 0.25),
    ...     scale=2, mechanism="padding_sampling", epsilon=1.1,
    ...     epsilon_per_option=1.1)
    >>> est.estimate
    array([0.2, 1.4])
    """
    return MultiSelectEstimate(
        n=n,
        estimate=unbiased_shares(counts, n, p, q, scale),
        standard_error=share_standard_error(counts, n, p, q, scale),
        counts=np.asarray(counts, dtype=np.int64).copy(),
        mechanism=mechanism,
        epsilon=epsilon,
        epsilon_per_option=epsilon_per_option,
        scale=scale,
        p_star=p.copy(),
        q_star=q.copy(),
    )
