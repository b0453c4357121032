"""Estimation for finite-channel mechanisms: score means and distributions."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ldp.estimators import channel as channel_estimators
from ldp.results import SupportCounts
from ldp.results_numeric import DistributionEstimate, MeanEstimate


class ChannelEstimation:
    """Estimates from the output histogram of a finite channel.

    Mixed into :class:`ldp.mechanisms.numeric.finite.FiniteChannelMechanism`,
    which provides ``name``, ``k``, ``outputs``, ``spec``, ``epsilon``,
    ``channel_matrix()`` and ``input_values()``.
    """

    name: ClassVar[str]
    primary: ClassVar[str] = "mean"
    """``"mean"`` or ``"distribution"``: what :meth:`estimate` returns."""
    k: int
    spec: Any
    epsilon: Any
    outputs: int
    _scores: tuple[np.ndarray, float] | None = None
    channel_matrix: Any
    input_values: Any

    # --- estimation -----------------------------------------------------------
    def scores(self) -> np.ndarray:
        """The score vector ``s``: ``E[s[Y] | x] = v_x`` for every input.

        Returns
        -------
        ndarray, shape (outputs,)
            Minimum-norm solution of ``Q s = v`` (least squares).

        Notes
        -----
        ``Σ_y Q[x, y] s_y = v_x``, so ``mean(s[y_i])`` is unbiased for the
        mean of the true answers.  :attr:`score_bias` is
        ``max_x |(Q s)_x − v_x|`` (zero up to rounding for invertible Q).

        References
        ----------
        .. [1] Deniable LDP primer, section 5 ("Unbiased mean for any channel").
        """
        if self._scores is None:
            self._scores = channel_estimators.score_vector(
                self.channel_matrix(), self.input_values()
            )
        return self._scores[0].copy()

    @property
    def score_bias(self) -> float:
        """Worst-case bias ``max_x |(Q s)_x − v_x|`` of the score estimator.

        Returns
        -------
        float
            Near 0 (float rounding) unless Q is numerically singular.

        Notes
        -----
        A very smooth kernel (a wide Gaussian) can be singular to working
        precision; the least-squares score then carries this bias.

        References
        ----------
        .. [1] Deniable LDP primer, section 5.
        """
        if self._scores is None:
            self.scores()
        return self._scores[1] if self._scores is not None else float("nan")

    def mean_variance(self) -> np.ndarray:
        """Per-report variance of the score, ``Var(s[Y] | x)``, for every x.

        Returns
        -------
        ndarray, shape (k,)
            ``Σ_y Q[x, y] s_y² − (Σ_y Q[x, y] s_y)²``.

        Notes
        -----
        The variance of the mean estimate is ``Σ_x f_x Var(s[Y]|x)/n`` plus
        the spread of the true values; the worst case over x drives planning.

        References
        ----------
        .. [1] Deniable LDP primer, sections 5 and 7.
        """
        q, s = self.channel_matrix(), self.scores()
        first = q @ s
        return np.maximum(q @ (s * s) - first * first, 0.0)

    def _check_stat(self, stat: SupportCounts) -> None:
        if not isinstance(stat, SupportCounts):
            raise ValueError("stat must be the SupportCounts returned by aggregate")
        if stat.spec != self.spec:
            raise ValueError("the histogram was made under a different spec")
        if stat.n <= 1:
            raise ValueError(f"need at least 2 reports to estimate, got {stat.n}")

    def estimate_mean(self, stat: SupportCounts) -> MeanEstimate:
        """Unbiased estimate of the mean answer value, with its standard error.

        Parameters
        ----------
        stat : SupportCounts
            The output histogram from :meth:`aggregate`.

        Returns
        -------
        MeanEstimate
            ``n``, ``estimate``, ``standard_error``, intervals.

        Notes
        -----
        ``μ̂ = (1/n) Σ_i s[y_i] = Σ_y c_y s_y / n``; ``SE = sqrt(S²/n)`` with
        ``S²`` the sample variance of the ``s[y_i]``.

        References
        ----------
        .. [1] Deniable LDP primer, section 5.
        .. [2] J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Minimax optimal
           procedures for locally private estimation", JASA 113(521), 2018.
        """
        self._check_stat(stat)
        return channel_estimators.mean_estimate(
            stat.counts,
            self.scores(),
            mechanism=self.name,
            epsilon=self.epsilon,
            bias_bound=self.score_bias,
        )

    def estimate_distribution(self, stat: SupportCounts) -> DistributionEstimate:
        """Unbiased estimate of the share of each input level.

        Parameters
        ----------
        stat : SupportCounts
            The output histogram from :meth:`aggregate`.

        Returns
        -------
        DistributionEstimate
            ``f̂``, sandwich covariance, intervals, ``consistent()``.

        Raises
        ------
        ValueError
            If the channel has fewer outputs than inputs (Duchi): the
            distribution is then not identifiable.

        Notes
        -----
        ``f̂ = (Qᵀ)⁺ c/n`` (the inverse for a square channel, least squares
        otherwise); ``Cov = A [diag(λ̂) − λ̂λ̂ᵀ] Aᵀ/n`` with ``A = (Qᵀ)⁺``.

        References
        ----------
        .. [1] Deniable LDP primer, section 6.
        .. [2] D. Agrawal, C. C. Aggarwal, PODS 2001.
        """
        self._check_stat(stat)
        if self.outputs < self.k:
            raise ValueError(
                f"{self.name} has {self.outputs} outputs for {self.k} inputs: the "
                "distribution is not identifiable; estimate the mean instead"
            )
        return channel_estimators.distribution_estimate(
            stat.counts,
            self.channel_matrix(),
            self.input_values(),
            mechanism=self.name,
            epsilon=self.epsilon,
        )

    def estimate(self, stat: SupportCounts) -> Any:  # type: ignore[override]
        """The primary estimate: the mean (numeric) or distribution (ordinal).

        Parameters
        ----------
        stat : SupportCounts
            The output histogram from :meth:`aggregate`.

        Returns
        -------
        MeanEstimate or DistributionEstimate
            See :attr:`primary`; both are reachable through
            :meth:`estimate_mean` and :meth:`estimate_distribution`.

        Notes
        -----
        Numeric grids: the mean; ordinal scales: the distribution (whose
        ``mean()`` gives the mean with its interval).

        References
        ----------
        .. [1] Deniable LDP primer, sections 4-6.
        """
        if self.primary == "distribution":
            return self.estimate_distribution(stat)
        return self.estimate_mean(stat)
