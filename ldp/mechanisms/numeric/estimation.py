"""Estimation for finite-channel mechanisms: score means and distributions."""

from __future__ import annotations

import math
from abc import abstractmethod
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import FloatArray
from ldp.counts import SupportCounts
from ldp.estimators import channel as channel_estimators
from ldp.estimators.channel import ChannelEstimate
from ldp.estimators.mean import MeanEstimate, mean_estimate
from ldp.mechanisms.about import REstimator
from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.numeric.estimation_r import CHANNEL, channel_r_arguments


class ChannelEstimation(Mechanism):
    """Estimates from the output histogram of a finite channel.

    The base of :class:`ldp.mechanisms.numeric.finite.FiniteChannelMechanism`,
    which provides ``outputs``, ``channel_matrix()`` and ``input_values()``.

    Attributes
    ----------
    mean_from_shares : bool
        True when :meth:`estimate`'s mean is ``vᵀ f̂`` (ordinal scales);
        False for the score mean (numeric grids).
    """

    minimum_reports: ClassVar[int] = 2
    interval_method: ClassVar[str] = "t"
    mean_from_shares: ClassVar[bool] = False
    r_estimator: ClassVar[REstimator | None] = CHANNEL

    def r_arguments(self) -> dict[str, Any]:
        """The channel's constants for the R script (``channel_r_arguments``)."""
        return channel_r_arguments(self)

    @property
    @abstractmethod
    def outputs(self) -> int:
        """Number of possible reports.

        Returns
        -------
        int
            Reports are integers in ``[0, outputs)``.

        Notes
        -----
        Columns of :meth:`channel_matrix`.

        References
        ----------
        .. [1] ldp/spec/README.md.
        """

    @abstractmethod
    def channel_matrix(self) -> FloatArray:
        """The channel ``Q[x, y] = P(report y | answer x)``.

        Returns
        -------
        ndarray, shape (k, outputs)
            Rows sum to 1.

        Notes
        -----
        ``ε = max_y ln(max_x Q[x, y]/min_x Q[x, y])``.

        References
        ----------
        .. [1] docs/maths.md, section 1.
        """

    @abstractmethod
    def input_values(self) -> FloatArray:
        """The value of each input level (grid value, or the level index).

        Returns
        -------
        ndarray of float, shape (k,)
            ``v_x``; the mean is ``Σ_x f_x v_x``.

        Notes
        -----
        For numeric grids ``v_x = low + x·step``.

        References
        ----------
        .. [1] docs/maths.md, section 5.
        """

    # --- cached channel algebra ---------------------------------------------
    @cached_property
    def _score_solution(self) -> tuple[FloatArray, float]:
        return channel_estimators.score_vector(
            self.channel_matrix(), self.input_values()
        )

    @cached_property
    def _inversion(self) -> tuple[FloatArray | None, bool]:
        return channel_estimators.channel_inversion(self.channel_matrix())

    def _cached_inversion(self) -> tuple[FloatArray | None, bool]:
        return self._inversion

    # --- scores ---------------------------------------------------------------
    def scores(self) -> FloatArray:
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
        .. [1] docs/maths.md, section 5 (unbiased mean for any channel).

        Examples
        --------
        >>> import ldp
        >>> m = ldp.build({"mechanism": "duchi", "low": "0", "high": "1",
        ...                "step": "1", "epsilon": 1.0})
        >>> m.scores().round(3)
        array([-0.582,  1.582])
        """
        return self._score_solution[0].copy()

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
        .. [1] docs/maths.md, section 5.
        """
        return self._score_solution[1]

    @property
    def bias_bound(self) -> float:
        """The score residual :attr:`score_bias` (the mean's worst-case bias).

        Returns
        -------
        float
            ``max_x |(Q s)_x − v_x|``.

        Notes
        -----
        Zero up to rounding for a well-conditioned channel.

        References
        ----------
        .. [1] docs/maths.md, section 5.
        """
        return self.score_bias

    @property
    def value_range(self) -> float:
        """``max v − min v``: the width of the mean's scale.

        Returns
        -------
        float
            ``high − low`` for numeric grids, ``k − 1`` for ordinal scales.

        Notes
        -----
        Margins asked as a fraction of the range are this times the fraction.

        References
        ----------
        .. [1] docs/maths.md, section 7.
        """
        values = self.input_values()
        return float(values.max() - values.min())

    @property
    def value_bounds(self) -> tuple[float, float]:
        """The smallest and largest answer value: where every mean lies.

        Returns
        -------
        (float, float)
            ``(min v, max v)``.

        Notes
        -----
        Mean intervals are held within it (docs/maths.md, section 6.8).

        References
        ----------
        .. [1] docs/maths.md, section 6.8.
        """
        values = self.input_values()
        return float(values.min()), float(values.max())

    def mean_variance(self) -> FloatArray:
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
        .. [1] docs/maths.md, sections 5 and 7.
        """
        q, s = self.channel_matrix(), self.scores()
        first = q @ s
        return np.maximum(q @ (s * s) - first * first, 0.0)

    def mean_noise_variance(self) -> float:
        """Worst-case per-report variance the randomization adds to the mean.

        Returns
        -------
        float
            ``max_x Var(s[Y] | x)`` in squared value units; ``inf`` when the
            score estimator is biased (a numerically singular channel).

        Notes
        -----
        ``Var(s[Y] | x) = Σ_y Q[x, y] s_y² − v_x²`` with the score ``Q s = v``.

        References
        ----------
        .. [1] docs/maths.md, sections 5 and 7.
        """
        if self.score_bias > 1e-6 * self.value_range:
            return math.inf
        return float(self.mean_variance().max())

    def worst_case_variance(self) -> float:
        """Upper bound on ``n · Var(μ̂)`` over every distribution of answers.

        Returns
        -------
        float
            ``max_x Var(s[Y] | x) + (high − low)²/4``.

        Notes
        -----
        ``Var(s[Y]) = E_f[Var(s[Y] | X)] + Var_f(v_X)``; the first term is at
        most the worst input's noise variance and the second at most
        ``(high − low)²/4``.

        References
        ----------
        .. [1] docs/maths.md, sections 5 and 7.
        """
        return self.mean_noise_variance() + self.value_range**2 / 4

    def manipulation_bound(self, share: float) -> float:
        """How far a ``share`` of fake respondents can move the estimate.

        Parameters
        ----------
        share : float
            Fraction of the reports that are fake.

        Returns
        -------
        float
            Score means: ``share · (max s − min s)`` in value units.  Shares
            (ordinal): ``share · max_x (max_y A[x, y] − min_y A[x, y])`` with
            ``A = (Qᵀ)⁺``.

        Notes
        -----
        One report adds ``s_y/n`` to the score mean and ``A[:, y]/n`` to the
        shares, so fakes choosing their report move them by at most the range.

        References
        ----------
        .. [1] A. Cheu, A. Smith, J. Ullman, "Manipulation attacks in local
           differential privacy", IEEE S&P 2021.
        .. [2] docs/maths.md, section 10.
        """
        if not self.mean_from_shares:
            scores = self.scores()
            return share * float(scores.max() - scores.min())
        inverse = np.linalg.pinv(self.channel_matrix().T)
        return share * float(np.max(inverse.max(axis=1) - inverse.min(axis=1)))

    # --- estimates --------------------------------------------------------------
    def estimate_mean(self, stat: SupportCounts) -> MeanEstimate:
        """Unbiased score estimate of the mean answer value, with its SE.

        Parameters
        ----------
        stat : SupportCounts
            The output histogram from :meth:`aggregate`.

        Returns
        -------
        MeanEstimate
            ``n``, ``estimate``, ``standard_error``, intervals.

        Raises
        ------
        ValueError
            For counts of another spec, or fewer than 2 reports.

        Notes
        -----
        ``μ̂ = (1/n) Σ_i s[y_i] = Σ_y c_y s_y / n``; ``SE = sqrt(S²/n)`` with
        ``S²`` the sample variance of the ``s[y_i]``.  Its interval uses at
        least the smallest per-answer score variance and stays within the
        answer range (:meth:`MeanEstimate.confidence_interval`).

        References
        ----------
        .. [1] docs/maths.md, section 5.
        .. [2] J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Minimax optimal
           procedures for locally private estimation", JASA 113(521), 2018.
        """
        self._check_stat(stat)
        return mean_estimate(
            stat.counts,
            self.scores(),
            mechanism=self.name,
            epsilon=self.epsilon,
            bias_bound=self.score_bias,
            variance_floor=float(self.mean_variance().min()),
            bounds=self.value_bounds,
        )

    def estimate(self, stat: SupportCounts) -> ChannelEstimate:
        """Answer shares (where identifiable) and the mean answer value.

        Parameters
        ----------
        stat : SupportCounts
            The output histogram from :meth:`aggregate`.

        Returns
        -------
        ChannelEstimate
            ``f̂ = (Qᵀ)⁺ c/n`` with its sandwich covariance when the channel
            identifies the shares, and ``mean()``: the score mean (numeric
            grids) or ``vᵀ f̂`` (ordinal scales).

        Raises
        ------
        ValueError
            For counts of another spec, or fewer than 2 reports.

        Notes
        -----
        Duchi's two outputs cannot identify k levels, and a numerically
        singular channel (condition number at least
        :data:`ldp.estimators.channel.CONDITION_MAX`) is treated alike:
        ``identifiable`` is then False and only the mean is given.

        References
        ----------
        .. [1] D. Agrawal, C. C. Aggarwal, PODS 2001.
        .. [2] docs/maths.md, sections 4-6.

        Examples
        --------
        >>> import ldp
        >>> m = ldp.build({"mechanism": "ordinal", "k": 3, "epsilon": 2.0})
        >>> est = m.estimate(m.aggregate([0, 0, 1, 2, 2, 2, 1, 0, 2, 2]))
        >>> est.identifiable, est.estimate.round(3)
        (True, array([ 0.394, -0.135,  0.741]))
        >>> round(est.mean().estimate, 3)
        1.348
        """
        self._check_stat(stat)
        return channel_estimators.channel_estimate(
            stat.counts,
            self.channel_matrix(),
            self.input_values(),
            mechanism=self.name,
            epsilon=self.epsilon,
            invert=self._cached_inversion,
            score_mean=None if self.mean_from_shares else self.estimate_mean(stat),
        )
