"""The weighted estimators' results, and the last steps both estimators share.

:func:`ldp.weighted_estimate` (from the reports) and
:func:`ldp.estimators.grouped.weighted_estimate_grouped` (from per-group sums)
reach the same weighted support sums and spread; from there the debiased
shares, their covariance and the weighted mean are computed here, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import FloatArray
from ldp.estimators import consistency
from ldp.estimators.intervals import (
    ConfidenceInterval,
    bounded_interval,
    critical_value,
)
from ldp.estimators.mean import MeanEstimate


@dataclass(frozen=True, eq=False)
class WeightedEstimate:
    """Weighted debiased shares with linearized standard errors.

    Attributes
    ----------
    n : int
        Number of reports.
    mechanism : str
        Mechanism name.
    epsilon : float
        Delivered ε (rounded up).
    estimate : ndarray
        ``f̂_v = (λ̂_v − q_v)/(p_v − q_v)``; may lie outside [0, 1].
    standard_error : ndarray
        Square roots of the diagonal of :attr:`covariance`.
    covariance : ndarray
        Linearized covariance of the shares (weights treated as fixed).
    support : ndarray
        Weighted support proportions ``λ̂_v = Σ w_i S_iv / Σ w_i``.
    design_effect : float
        Kish's ``n Σw²/(Σw)²``.
    sums_to_one : bool
        True for single-answer questions; False for multi-select shares.

    Examples
    --------
    >>> import ldp
    >>> coin = ldp.build({"mechanism": "forced_response", "design": {
    ...     "truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}})
    >>> est = ldp.weighted_estimate(coin, [1, 1, 0, 1], [1, 1, 2, 2])
    >>> est.estimate
    array([0.16666667, 0.83333333])
    """

    n: int
    mechanism: str
    epsilon: float
    estimate: FloatArray
    standard_error: FloatArray
    covariance: FloatArray
    support: FloatArray
    design_effect: float
    sums_to_one: bool = True

    @property
    def effective_sample_size(self) -> float:
        """Kish's effective sample size ``n / deff``.

        Returns
        -------
        float
            ``(Σw)²/Σw²``.

        See Also
        --------
        WeightedEstimate.design_effect : The inflation factor.

        Examples
        --------
        >>> import ldp
        >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
        >>> est = ldp.weighted_estimate(warner, [1, 0, 1, 1], [1, 1, 1, 3])
        >>> est.effective_sample_size
        3.0
        """
        return self.n / self.design_effect

    def confidence_interval(
        self, level: float = 0.95, simultaneous: bool = False
    ) -> ConfidenceInterval[FloatArray]:
        """Wald intervals ``f̂_v ± z SE_v``, held within [0, 1].

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.
        simultaneous : bool, optional
            Bonferroni over the k answers.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays.

        Raises
        ------
        ValueError
            For a level outside (0, 1).

        Notes
        -----
        Linearization gives an asymptotically normal ratio estimator.  The
        interval is moved towards [0, 1] and intersected with it, which never
        covers less (:func:`ldp.estimators.intervals.bounded_interval`).

        References
        ----------
        .. [1] T. Lumley, "Complex Surveys", Wiley 2010, section 2.2.

        Examples
        --------
        >>> import ldp
        >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
        >>> est = ldp.weighted_estimate(warner, [1, 0, 1, 1], [1, 1, 1, 3])
        >>> est.confidence_interval().low.round(2)
        array([0.  , 0.41])
        """
        z = critical_value(level, tests=self.estimate.size if simultaneous else 1)
        return bounded_interval(self.estimate, z * self.standard_error, 0.0, 1.0)

    def consistent(self) -> FloatArray:
        """Make the shares consistent: simplex projection, or clipping.

        Returns
        -------
        ndarray
            Single-answer questions: non-negative shares summing to 1
            (Norm-Sub).  Multi-select: each share clipped to [0, 1].

        Notes
        -----
        ``f̃_v = max(f̂_v + δ, 0)``, δ such that ``Σ f̃_v = 1``.

        References
        ----------
        .. [1] Wang et al., NDSS 2020, section 4.

        Examples
        --------
        >>> import ldp
        >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
        >>> ldp.weighted_estimate(warner, [1, 1, 1, 1], [1, 1, 1, 3]).consistent()
        array([0., 1.])
        """
        if not self.sums_to_one:
            return np.clip(self.estimate, 0.0, 1.0)
        return consistency.project_simplex(self.estimate)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict of the estimate.

        Returns
        -------
        dict
            ``n``, ``mechanism``, ``epsilon``, ``estimate``,
            ``standard_error``, ``support``, ``design_effect``,
            ``effective_sample_size``.

        Notes
        -----
        Plain Python numbers only.

        References
        ----------
        .. [1] docs/maths.md, section 6.6.

        Examples
        --------
        >>> import ldp
        >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
        >>> ldp.weighted_estimate(warner, [1, 0], [1, 1]).to_dict()["design_effect"]
        1.0
        """
        return {
            "n": self.n,
            "mechanism": self.mechanism,
            "epsilon": self.epsilon,
            "estimate": [float(x) for x in self.estimate],
            "standard_error": [float(x) for x in self.standard_error],
            "support": [float(x) for x in self.support],
            "design_effect": self.design_effect,
            "effective_sample_size": self.effective_sample_size,
        }


def centred_spread(
    weighted: FloatArray,
    squared: FloatArray,
    cross: FloatArray,
    total: float,
    total_squares: float,
) -> FloatArray:
    """``Σ w_i² (S_i − λ)(S_i − λ)ᵀ`` from the sums of one group's reports.

    With ``λ = Σ w S / Σ w`` (0 without weight), it is ``Σ w² S Sᵀ −
    λ (Σ w² S)ᵀ − (Σ w² S) λᵀ + λλᵀ Σ w²``: ``weighted = Σ w S``,
    ``squared = Σ w² S``, ``cross = Σ w² S Sᵀ``, ``total = Σ w``,
    ``total_squares = Σ w²`` (docs/maths.md, section 6.6).
    """
    lam = weighted / total if total > 0 else np.zeros(len(weighted))
    spread = cross - np.outer(lam, squared) - np.outer(squared, lam)
    return spread + np.outer(lam, lam) * total_squares


def shares_from_support(
    mechanism: Any,
    n: int,
    weighted: FloatArray,
    spread: FloatArray,
    total: float,
    design_effect: float,
) -> WeightedEstimate:
    """The debiased shares of ``n`` reports from their weighted support sums.

    ``λ̂ = weighted / total``, ``Cov(λ̂) = n/(n − 1) spread / total²`` and
    ``f̂_v = L (λ̂_v − q_v)/(p_v − q_v)`` (see :func:`weighted_estimate`);
    one home for the reports' and the groups' estimators.
    """
    k = int(mechanism.k)
    lam = weighted / total
    cov_lam = spread / total**2 * n / (n - 1)
    p = np.asarray(mechanism.p_star, dtype=float)[:k]
    q = np.asarray(mechanism.q_star, dtype=float)[:k]
    scale = float(getattr(mechanism, "scale", 1)) / (p - q)
    covariance = cov_lam * np.outer(scale, scale)
    covariance = (covariance + covariance.T) / 2
    return WeightedEstimate(
        n=n,
        mechanism=str(mechanism.name),
        epsilon=float(mechanism.epsilon),
        estimate=(lam - q) * scale,
        standard_error=np.sqrt(np.maximum(np.diag(covariance), 0.0)),
        covariance=covariance,
        support=lam,
        design_effect=design_effect,
        sums_to_one=not hasattr(mechanism, "max_selections"),
    )


def mean_from_scores(
    mechanism: Any, n: int, mean: float, variance: float
) -> MeanEstimate:
    """The weighted mean score ``mean`` of ``n`` reports as a :class:`MeanEstimate`,
    with the mechanism's score bias bound and value range."""
    return MeanEstimate(
        n=n,
        estimate=float(mean),
        standard_error=float(np.sqrt(max(variance, 0.0))),
        mechanism=str(mechanism.name),
        epsilon=float(mechanism.epsilon),
        bias_bound=float(mechanism.score_bias),
        bounds=value_bounds(mechanism),
    )


def value_bounds(mechanism: Any) -> tuple[float, float] | None:
    """The range of a mechanism's answer values, where it has one."""
    values = mechanism.input_values() if hasattr(mechanism, "input_values") else None
    if values is None:
        return None
    values = np.asarray(values, dtype=float)
    return float(values.min()), float(values.max())
