"""Truncated discrete Gaussian noise on a grid, calibrated to a pure ε."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp.accounting import gaussian_dp_mu, privacy_profile
from ldp.arrays import AnyArray
from ldp.mechanisms.numeric.calibration import float_epsilon
from ldp.mechanisms.numeric.geometric import KernelMechanism

CALIBRATION_WIDENINGS = 60
"""How many times the σ bracket may be doubled to reach a small ε."""


class DiscreteGaussian(KernelMechanism):
    """Discrete Gaussian noise in level units, clamped to the grid.

    Notes
    -----
    Kernel ``K[d] ∝ exp(−d²/(2σ²))`` for ``|d| < m − 1``; the two end entries
    carry the folded tails ``Σ_{j >= m−1} exp(−j²/(2σ²))``, so the channel is
    that of an untruncated discrete Gaussian clamped to the grid.  The channel
    is finite with every weight ``>= 1``, so it has a pure ε; σ is calibrated
    by bisection (on ``ln σ``) so the exact ε of the integer channel is the
    requested ε (never above).  The privacy profile ``δ(ε)`` of the same
    integer channel is :meth:`privacy_profile`; :attr:`gdp_mu` is the nominal
    ``μ = Δ/σ`` with ``Δ = m − 1`` levels (exact for the continuous Gaussian,
    approximate for the discrete one; :meth:`gdp_mu_exact` computes the
    channel's own μ).  Sampling is as for ``geometric``.

    References
    ----------
    .. [1] C. L. Canonne, G. Kamath, T. Steinke, "The discrete Gaussian for
       differential privacy", NeurIPS 2020.
    .. [2] B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for
       differential privacy: analytical calibration and optimal denoising",
       ICML 2018.
    .. [3] J. Dong, A. Roth, W. J. Su, "Gaussian differential privacy",
       JRSS B 84(1), 2022.
    .. [4] docs/maths.md, sections 1 and 5.
    """

    name = "gaussian"

    def _real_kernel(self, parameter: float) -> AnyArray:
        m, sigma = self.k, math.exp(parameter)
        offsets = np.arange(-(m - 1), m).astype(float)
        kernel = np.exp(-(offsets**2) / (2 * sigma**2))
        reach = int(m + 40 * sigma + 10)
        tail = np.exp(-(np.arange(m - 1, reach, dtype=float) ** 2) / (2 * sigma**2))
        kernel[[0, -1]] = tail.sum()
        return kernel

    def _derive_weights(self) -> dict[str, Any]:
        epsilon = float(self._params["epsilon"])
        guess = math.log((self.k - 1) / math.sqrt(2 * epsilon))
        low, high = guess - 4.0, guess + 3.0
        for _ in range(CALIBRATION_WIDENINGS):
            if self._fits(high, epsilon):
                break
            low, high = high, high + 1.0
        return self._calibrated(low, high)

    def _fits(self, parameter: float, epsilon: float) -> bool:
        return float_epsilon(self._kernel_weights(parameter)) < epsilon

    @property
    def sigma(self) -> float:
        """The calibrated σ in level units.

        Returns
        -------
        float
            Standard deviation of the (untruncated) discrete Gaussian kernel.

        Notes
        -----
        Multiply by ``step`` for value units.

        References
        ----------
        .. [1] Canonne, Kamath, Steinke, NeurIPS 2020.
        """
        return math.exp(self.parameter)

    @property
    def gdp_mu(self) -> float:
        """Nominal Gaussian-DP parameter ``μ = Δ/σ`` with ``Δ = m − 1``.

        Returns
        -------
        float
            μ of the continuous Gaussian with this σ and sensitivity.

        Notes
        -----
        μ-GDP implies ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``; the
        discrete, clamped channel is a post-processing-like variant, so use
        :meth:`gdp_mu_exact` or :meth:`privacy_profile` for exact figures.

        References
        ----------
        .. [1] Dong, Roth, Su, JRSS B 2022, Theorem 2.7.
        """
        return (self.k - 1) / self.sigma

    def gdp_mu_exact(self) -> float:
        """The smallest μ for which this integer channel is μ-GDP.

        Returns
        -------
        float
            From the channel's trade-off functions (exact vertices).

        Notes
        -----
        Cost grows as ``m^2`` pairs; intended for small and moderate grids.

        References
        ----------
        .. [1] Dong, Roth, Su, JRSS B 2022, Def. 2.6.
        """
        return gaussian_dp_mu(self.channel_matrix())

    def privacy_profile(self, epsilons: ArrayLike) -> AnyArray:
        """Exact privacy profile ``δ(ε)`` of the integer channel.

        Parameters
        ----------
        epsilons : array_like
            Values of ε.

        Returns
        -------
        ndarray
            ``δ(ε) = max_{x≠x'} Σ_y max(0, Q[x, y] − e^ε Q[x', y])``; zero from
            the pure ε up.

        Notes
        -----
        Cost ``O(m² · m log m)``; seconds for ``m`` in the hundreds.

        References
        ----------
        .. [1] Balle, Wang, ICML 2018 (privacy profiles).
        .. [2] docs/maths.md, section 1.
        """
        return privacy_profile(self.channel_matrix(), epsilons)
