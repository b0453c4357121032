"""Result objects for means and distributions of ordinal and numeric answers.

In the style of SciPy's result objects: plain fields plus methods such as
``confidence_interval()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ldp.estimators import consistency
from ldp.results import ConfidenceInterval

INTERVAL_METHODS = ("t", "normal")


def _quantile(level: float, method: str, df: int) -> float:
    if not 0 < level < 1:
        raise ValueError(f"level is {level!r}; allowed: 0 < level < 1")
    if method == "t":
        return float(stats.t.ppf(1 - (1 - level) / 2, df))
    if method == "normal":
        return float(stats.norm.ppf(1 - (1 - level) / 2))
    raise ValueError(f"method is {method!r}; allowed: {list(INTERVAL_METHODS)}")


@dataclass(frozen=True)
class MeanEstimate:
    """An unbiased mean with its standard error.

    Attributes
    ----------
    n : int
        Number of reports.
    estimate : float
        ``μ̂``, the average score of the reports (may leave ``[low, high]``).
    standard_error : float
        ``sqrt(S²/n)``, ``S²`` the sample variance of the scores.
    mechanism : str
        Mechanism name.
    epsilon : float
        Delivered ε (rounded up).
    bias_bound : float
        Worst-case ``|E μ̂ − μ|`` from the score residual (0 up to rounding).
    """

    n: int
    estimate: float
    standard_error: float
    mechanism: str
    epsilon: float
    bias_bound: float = 0.0

    def confidence_interval(
        self, level: float = 0.95, method: str = "t"
    ) -> ConfidenceInterval:
        """Two-sided interval ``μ̂ ± q·SE``.

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.
        method : {"t", "normal"}, optional
            Student t with ``n − 1`` degrees of freedom, or normal quantile.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` as floats.

        Notes
        -----
        The mean of n independent bounded scores is asymptotically normal;
        ``q = t_{n−1, 1−α/2}`` or ``z_{1−α/2}``.

        References
        ----------
        .. [1] Deniable LDP primer, section 5.
        """
        q = _quantile(level, method, self.n - 1)
        half = q * self.standard_error
        return ConfidenceInterval(self.estimate - half, self.estimate + half)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict of the fields.

        Returns
        -------
        dict
            ``n``, ``estimate``, ``standard_error``, ``mechanism``,
            ``epsilon``, ``bias_bound``.

        Notes
        -----
        Plain Python numbers only.

        References
        ----------
        .. [1] Deniable LDP primer, section 5.
        """
        return {
            "n": self.n,
            "estimate": float(self.estimate),
            "standard_error": float(self.standard_error),
            "mechanism": self.mechanism,
            "epsilon": float(self.epsilon),
            "bias_bound": float(self.bias_bound),
        }


@dataclass(frozen=True, eq=False)
class DistributionEstimate:
    """Unbiased shares of each answer level, with their covariance.

    Attributes
    ----------
    n : int
        Number of reports.
    estimate : ndarray
        ``f̂ = (Qᵀ)⁺ c/n``; may be negative; sums to 1 for a square channel
        (ordinal, geometric, Gaussian), only in expectation otherwise.
    covariance : ndarray
        Sandwich ``A [diag(λ̂) − λ̂λ̂ᵀ] Aᵀ/n``.
    counts : ndarray
        Report histogram ``c_y``.
    channel : ndarray
        ``Q[x, y]``.
    values : ndarray
        Value of each answer level.
    mechanism : str
        Mechanism name.
    epsilon : float
        Delivered ε (rounded up).
    """

    n: int
    estimate: np.ndarray
    covariance: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    channel: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    mechanism: str = ""
    epsilon: float = float("nan")

    @property
    def standard_error(self) -> np.ndarray:
        """Standard error of each share.

        Returns
        -------
        ndarray
            ``sqrt(diag(Cov))``.

        Notes
        -----
        Plug-in sandwich covariance with ``λ̂ = c/n``.

        References
        ----------
        .. [1] Deniable LDP primer, section 6.
        """
        return np.sqrt(np.maximum(np.diag(self.covariance), 0.0))

    def confidence_interval(
        self, level: float = 0.95, simultaneous: bool = False
    ) -> ConfidenceInterval:
        """Normal (Wald) intervals ``f̂_x ± z·SE_x``.

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.
        simultaneous : bool, optional
            Bonferroni over the k levels.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays (not clipped).

        Notes
        -----
        ``f̂`` is a linear map of a multinomial mean: asymptotically normal.

        References
        ----------
        .. [1] Deniable LDP primer, section 6.
        """
        k = self.estimate.size
        alpha = (1 - level) / (k if simultaneous else 1)
        z = _quantile(1 - alpha, "normal", self.n - 1)
        half = z * self.standard_error
        return ConfidenceInterval(self.estimate - half, self.estimate + half)

    def consistent(self, method: str = "norm-sub") -> np.ndarray:
        """Non-negative shares summing to 1.

        Parameters
        ----------
        method : {"norm-sub", "mle"}, optional
            Euclidean projection of ``f̂`` onto the simplex, or the multinomial
            maximum-likelihood estimate by EM on the channel.

        Returns
        -------
        ndarray
            Shares on the simplex.

        Notes
        -----
        EM: ``f_x ← Σ_y (c_y/n) Q[x, y] f_x / Σ_x' Q[x', y] f_x'``.

        References
        ----------
        .. [1] T. Wang et al., "Locally differentially private frequency
           estimation with consistency", NDSS 2020.
        .. [2] D. Agrawal, C. C. Aggarwal, PODS 2001.
        """
        if method == "norm-sub":
            return consistency.project_simplex(self.estimate)
        if method == "mle":
            from ldp.estimators.channel import channel_mle

            return channel_mle(self.channel, self.counts)
        raise ValueError(f"method is {method!r}; allowed: 'norm-sub', 'mle'")

    def mean(self) -> MeanEstimate:
        """The mean answer value ``vᵀ f̂`` with SE ``sqrt(vᵀ Cov v)``.

        Returns
        -------
        MeanEstimate
            Unbiased; equal to the score mean for a square channel.

        Notes
        -----
        ``vᵀ A c/n`` is the score mean with ``s = Aᵀ v``.

        References
        ----------
        .. [1] Deniable LDP primer, sections 5 and 6.
        """
        v = self.values
        variance = float(v @ self.covariance @ v)
        return MeanEstimate(
            n=self.n,
            estimate=float(v @ self.estimate),
            standard_error=float(np.sqrt(max(variance, 0.0))),
            mechanism=self.mechanism,
            epsilon=self.epsilon,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict.

        Returns
        -------
        dict
            ``n``, ``mechanism``, ``epsilon``, ``estimate``,
            ``standard_error``, ``consistent`` (Norm-Sub), ``counts``.

        Notes
        -----
        Plain Python numbers only.

        References
        ----------
        .. [1] Deniable LDP primer, section 6.
        """
        return {
            "n": self.n,
            "mechanism": self.mechanism,
            "epsilon": float(self.epsilon),
            "estimate": [float(x) for x in self.estimate],
            "standard_error": [float(x) for x in self.standard_error],
            "consistent": [float(x) for x in self.consistent()],
            "counts": [int(c) for c in self.counts],
        }
