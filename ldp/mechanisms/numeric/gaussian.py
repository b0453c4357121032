"""Truncated discrete Gaussian noise on a grid, calibrated to a pure ε."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp.accounting import gaussian_dp_mu, privacy_profile
from ldp.arrays import AnyArray
from ldp.exact import UndeliverableEpsilon, round_up_float
from ldp.mechanisms.numeric.calibration import (
    extremes_epsilon,
    extremes_float_epsilon,
)
from ldp.mechanisms.numeric.geometric import KernelMechanism
from ldp.mechanisms.words import Words, gettext_noop

CALIBRATION_WIDENINGS = 60
"""How many times the σ bracket may be doubled to reach a small ε."""

TAIL_TERMS_MAX = 2**22
"""Most terms of the folded tail one kernel may allocate (32 MiB of floats).

The tail ``Σ_{j >= m−1} exp(−j²/(2σ²))`` is summed over
``tail_terms(m, σ) = m + 40σ + 10`` offsets, so σ is capped at
:func:`sigma_max` and a spec needing more noise is refused before anything
is allocated.  With ``m`` levels the clamped channel's ε is about
``(m − 1)/(1.25 σ)`` for large σ, so the cap is reached near
``ε ≈ 32 (m − 1)/2^22`` (``7.6e-5`` for 11 levels, ``0.0076`` for 1001)."""


def tail_terms(m: int, sigma: float) -> int:
    """Number of terms summed for the folded tails of the kernel.

    Parameters
    ----------
    m : int
        Number of grid levels.
    sigma : float
        Standard deviation in level units.

    Returns
    -------
    int
        ``m + 40σ + 10`` rounded down (the offsets ``m − 1 … reach − 1``).

    Notes
    -----
    Terms beyond ``40σ`` are below ``e^{−800}``, zero in double precision.

    References
    ----------
    .. [1] C. L. Canonne, G. Kamath, T. Steinke, "The discrete Gaussian for
       differential privacy", NeurIPS 2020 (tail bounds).
    """
    return int(m + 40 * sigma + 10)


def sigma_max(m: int) -> float:
    """Largest σ whose kernel stays within :data:`TAIL_TERMS_MAX` terms.

    Parameters
    ----------
    m : int
        Number of grid levels.

    Returns
    -------
    float
        ``(TAIL_TERMS_MAX − m − 10)/40``, so ``tail_terms(m, σ) <= cap``.

    Notes
    -----
    Inverts :func:`tail_terms`.

    References
    ----------
    .. [1] docs/maths.md, section 5 (bounded cost of a compile).
    """
    return (TAIL_TERMS_MAX - m - 10) / 40


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
    label = gettext_noop("Discrete Gaussian")

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device shifts the number by bell-shaped random noise on the "
                "grid and keeps it within the range (discrete Gaussian)."
            )
        )

    def _real_kernel(self, parameter: float) -> AnyArray:
        m, sigma = self.k, math.exp(parameter)
        reach = tail_terms(m, sigma)
        if reach > TAIL_TERMS_MAX:  # checked before allocating anything
            raise UndeliverableEpsilon(
                f"σ = {sigma:.4g} would sum {reach} tail terms, more than the "
                f"cap of {TAIL_TERMS_MAX}"
            )
        offsets = np.arange(-(m - 1), m).astype(float)
        kernel = np.exp(-(offsets**2) / (2 * sigma**2))
        tail = np.exp(-(np.arange(m - 1, reach, dtype=float) ** 2) / (2 * sigma**2))
        kernel[[0, -1]] = tail.sum()
        return kernel

    def _bracket(self, epsilon: float) -> tuple[float, float]:
        guess = math.log((self.k - 1) / math.sqrt(2 * epsilon))
        cap = math.log(sigma_max(self.k))
        high = min(guess + 3.0, cap)
        low = min(guess - 4.0, high - 7.0)
        for _ in range(CALIBRATION_WIDENINGS):
            if high >= cap or self._fits(high, epsilon):
                break
            low, high = high, min(high + 1.0, cap)
        return low, high

    @classmethod
    def smallest_epsilon_hint(cls, params: dict[str, Any]) -> float | None:
        """The exact ε of the integer channel at the largest allowed σ.

        Parameters
        ----------
        params : dict
            A validated ``gaussian`` spec.

        Returns
        -------
        float
            ``ε'(W(σ_max))`` rounded up to a float: calibration meets any
            request from there up, and none below (more noise is refused).

        Notes
        -----
        One kernel at :func:`sigma_max` instead of a bisection of compiles.

        References
        ----------
        .. [1] docs/maths.md, section 5 (bounded cost of a compile).
        """
        probe = cls.__new__(cls)
        probe._params = params
        probe.k = probe._input_size()
        row = probe._kernel_row(math.log(sigma_max(probe.k)))
        return round_up_float(extremes_epsilon(probe._row_extremes(row)))

    def _fits(self, parameter: float, epsilon: float) -> bool:
        row = self._kernel_row(parameter)
        return extremes_float_epsilon(self._row_extremes(row)) < epsilon

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
