"""Gaussian differential privacy (μ-GDP): trade-off, δ(ε), composition."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import log_ndtr, ndtr, ndtri

from ldp.accounting.channels import as_epsilons
from ldp.accounting.tradeoff import as_alphas, dominating_pair
from ldp.arrays import AnyArray


def _check_mu(mu: float) -> float:
    mu = float(mu)
    if not mu >= 0:
        raise ValueError(f"μ must be >= 0 (inf allowed), got {mu}")
    return mu


def gdp_tradeoff(mu: float, alphas: ArrayLike) -> AnyArray:
    """Return the Gaussian trade-off function ``G_μ`` at the given α.

    Parameters
    ----------
    mu : float
        μ >= 0.
    alphas : array_like
        Type-I errors in [0, 1].

    Returns
    -------
    ndarray
        ``G_μ(α)`` with the shape of ``alphas``.

    Notes
    -----
    ``G_μ(α) = T(N(0, 1), N(μ, 1))(α) = Φ(Φ⁻¹(1 − α) − μ)``, evaluated as
    ``Φ(−Φ⁻¹(α) − μ)`` to keep precision for small α.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Def. 2.6.
    """
    mu = _check_mu(mu)
    grid = as_alphas(alphas)
    if math.isinf(mu):
        return np.where(grid > 0, 0.0, 1.0)
    return ndtr(-ndtri(grid) - mu)


def gdp_delta(mu: float, epsilons: ArrayLike) -> AnyArray:
    """Return δ(ε) of a μ-GDP mechanism.

    Parameters
    ----------
    mu : float
        μ >= 0.
    epsilons : array_like
        Values of ε.

    Returns
    -------
    ndarray
        δ(ε) in [0, 1] with the shape of ``epsilons``.

    Notes
    -----
    ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``; a mechanism is μ-GDP exactly
    when it is (ε, δ(ε))-DP for every ε.  The second term is computed as
    ``exp(ε + ln Φ(·))`` so it does not overflow.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Corollary 2.13.
    .. [2] B. Balle and Y.-X. Wang (2018), Theorem 8 (analytic Gaussian).
    """
    mu = _check_mu(mu)
    grid = as_epsilons(epsilons)
    if mu == 0:
        return np.maximum(0.0, -np.expm1(grid))
    if math.isinf(mu):
        return np.where(np.isposinf(grid), 0.0, 1.0)
    with np.errstate(invalid="ignore"):
        delta = ndtr(-grid / mu + mu / 2) - np.exp(grid + log_ndtr(-grid / mu - mu / 2))
    delta = np.where(np.isposinf(grid), 0.0, delta)
    return np.clip(delta, 0.0, 1.0)


def gdp_mu_from_sigma(sensitivity: float, sigma: float) -> float:
    """Return μ of the Gaussian mechanism ``x + N(0, σ²)``.

    Parameters
    ----------
    sensitivity : float
        ℓ2-sensitivity Δ >= 0 (for one respondent: the width of the domain).
    sigma : float
        Noise standard deviation σ > 0.

    Returns
    -------
    float
        ``μ = Δ / σ``.

    Notes
    -----
    ``T(N(x, σ²), N(x', σ²)) = G_{|x − x'|/σ}``, worst at ``|x − x'| = Δ``.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Theorem 2.7.
    """
    if not sensitivity >= 0 or not sigma > 0 or math.isinf(sigma):
        raise ValueError(
            f"need sensitivity >= 0 and finite σ > 0, got {sensitivity}, {sigma}"
        )
    return float(sensitivity) / float(sigma)


def gaussian_dp_mu(Q: ArrayLike) -> float:
    """Return the smallest μ for which the channel is μ-GDP.

    Parameters
    ----------
    Q : array_like, shape (k, m)
        Channel ``Q[x, y] = P(report y | true answer x)``.

    Returns
    -------
    float
        The smallest μ with ``T(α) >= G_μ(α)`` for every α; ``inf`` when no μ
        works (a hole, or a test with type-II error 0 at type-I error < 1).

    Notes
    -----
    The channel's f (convex envelope of its trade-off function) is piecewise
    linear with vertices ``(a_i, b_i)`` and ``G_μ`` is convex, so ``f − G_μ``
    is concave on each segment and is smallest at a vertex.  Hence the check on
    the vertices is exact, not a grid approximation:
    ``μ = max_i (Φ⁻¹(1 − a_i) − Φ⁻¹(b_i))``, ignoring ``(0, 1)`` and
    ``(1, 0)``.  For binary randomized response this is
    ``μ = 2 Φ⁻¹(e^ε / (1 + e^ε))``.  Floating-point error is ~1e-15.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Def. 2.6 and Prop. 2.5.
    """
    pair = dominating_pair(Q)
    a, b = pair.alphas, pair.betas
    inner = ~(((a == 0) & (b == 1)) | ((a == 1) & (b == 0)))
    a, b = a[inner], b[inner]
    if a.size == 0:
        return 0.0
    if np.any(a == 0) or np.any(b == 0):
        return math.inf
    return max(0.0, float(np.max(-ndtri(a) - ndtri(b))))


def gdp_composition(mus: Iterable[float]) -> float:
    """Return μ of the composition of μ_j-GDP mechanisms.

    Parameters
    ----------
    mus : iterable of float
        Each μ_j >= 0.

    Returns
    -------
    float
        ``μ = sqrt(Σ_j μ_j²)`` (0 for an empty survey).

    Notes
    -----
    ``G_{μ1} ⊗ G_{μ2} = G_{sqrt(μ1² + μ2²)}``; holds for adaptive composition.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Corollary 3.3.
    """
    values = [_check_mu(mu) for mu in mus]
    return math.hypot(*values) if values else 0.0


def group_mu(mu: float, k: int) -> float:
    """Return μ for a group of ``k`` related answers.

    Parameters
    ----------
    mu : float
        μ >= 0 of the mechanism for one answer.
    k : int
        Group size >= 1.

    Returns
    -------
    float
        ``k μ``.

    Notes
    -----
    A μ-GDP mechanism is kμ-GDP for groups of size k.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Theorem 2.14.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"group size k must be an int >= 1, got {k!r}")
    return k * _check_mu(mu)
