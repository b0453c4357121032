"""Unbiased frequency estimates, standard errors and confidence bounds.

Every oracle's support count ``C_v`` is Binomial(n, λ_v) with
``λ_v = q_v + f_v (p_v − q_v)``, so one set of formulas serves them all.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

METHODS = ("exact", "wilson", "wald")


def unbiased(counts: np.ndarray, n: int, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Return the unbiased estimates ``f̂_v``.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v``.
    n : int
        Number of reports (``> 0``).
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.

    Returns
    -------
    ndarray
        ``f̂_v = (C_v/n − q_v)/(p_v − q_v)``.

    Notes
    -----
    ``E[C_v/n] = λ_v = q_v + f_v (p_v − q_v)``, so ``f̂_v`` is unbiased.

    References
    ----------
    .. [1] T. Wang, J. Blocki, N. Li, S. Jha, "Locally differentially private
       protocols for frequency estimation", USENIX Security 2017, eq. (1).
    .. [2] Deniable LDP primer, section 3.
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    return (np.asarray(counts, dtype=float) / n - q) / (p - q)


def standard_error(
    counts: np.ndarray, n: int, p: np.ndarray, q: np.ndarray
) -> np.ndarray:
    """Return the plug-in standard errors of ``f̂_v``.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v``.
    n : int
        Number of reports.
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.

    Returns
    -------
    ndarray
        ``sqrt(λ̂_v (1 − λ̂_v)/n)/(p_v − q_v)`` with ``λ̂_v = C_v/n``.

    Notes
    -----
    ``Var f̂_v = λ_v (1 − λ_v)/(n (p_v − q_v)^2)``, estimated by plug-in.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4 (variance of f̂).
    .. [2] Deniable LDP primer, section 3.
    """
    lam = np.asarray(counts, dtype=float) / n
    return np.sqrt(lam * (1.0 - lam) / n) / (p - q)


def variance(f: np.ndarray, n: int, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Return the exact variance of ``f̂_v`` at true shares ``f``.

    Parameters
    ----------
    f : ndarray
        True shares.
    n : int
        Number of reports.
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.

    Returns
    -------
    ndarray
        ``λ_v (1 − λ_v)/(n (p_v − q_v)^2)``, ``λ_v = q_v + f_v (p_v − q_v)``.

    Notes
    -----
    Binomial variance of ``C_v/n`` scaled by ``1/(p − q)^2``.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4.
    .. [2] Deniable LDP primer, section 3.
    """
    lam = q + np.asarray(f, dtype=float) * (p - q)
    return lam * (1.0 - lam) / (n * (p - q) ** 2)


def confidence_bounds(
    counts: np.ndarray,
    n: int,
    p: np.ndarray,
    q: np.ndarray,
    level: float = 0.95,
    method: str = "exact",
    simultaneous: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Return per-value confidence bounds for the shares ``f_v``.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v``.
    n : int
        Number of reports.
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.
    level : float, optional
        Confidence level ``1 − α`` in (0, 1).
    method : {"exact", "wilson", "wald"}, optional
        Interval construction.
    simultaneous : bool, optional
        Use ``α/k`` per value (Bonferroni).

    Returns
    -------
    low, high : ndarray
        Bounds for each ``f_v``.

    Notes
    -----
    Exact (Clopper–Pearson): ``λ_L = B^{-1}(α/2; C, n − C + 1)``,
    ``λ_U = B^{-1}(1 − α/2; C + 1, n − C)``.  Wilson:
    ``(C + z²/2)/(n + z²) ± z/(n + z²) sqrt(C(n − C)/n + z²/4)``.  Both map
    through ``(λ − q)/(p − q)`` and are clipped to [0, 1].  Wald:
    ``f̂ ± z·SE``, unclipped.

    References
    ----------
    .. [1] C. J. Clopper, E. S. Pearson, Biometrika 26(4), 1934.
    .. [2] E. B. Wilson, JASA 22(158), 1927.
    .. [3] Deniable LDP primer, section 2 ("Exact CI") and section 3.
    """
    if method not in METHODS:
        raise ValueError(f"method is {method!r}; allowed: {list(METHODS)}")
    if not 0 < level < 1:
        raise ValueError(f"level is {level!r}; allowed: 0 < level < 1")
    counts = np.asarray(counts, dtype=float)
    alpha = 1.0 - level
    if simultaneous:
        alpha /= counts.size
    z = stats.norm.ppf(1.0 - alpha / 2.0)
    if method == "wald":
        center = unbiased(counts, n, p, q)
        half = z * standard_error(counts, n, p, q)
        return center - half, center + half
    if method == "exact":
        safe_low = np.maximum(counts, 1.0)
        safe_high = np.minimum(counts, n - 1.0)
        lam_low = np.where(
            counts > 0, stats.beta.ppf(alpha / 2, safe_low, n - safe_low + 1), 0.0
        )
        lam_high = np.where(
            counts < n,
            stats.beta.ppf(1 - alpha / 2, safe_high + 1, n - safe_high),
            1.0,
        )
    else:
        center = (counts + z**2 / 2) / (n + z**2)
        half = z / (n + z**2) * np.sqrt(counts * (n - counts) / n + z**2 / 4)
        lam_low, lam_high = center - half, center + half
    low = np.clip((lam_low - q) / (p - q), 0.0, 1.0)
    high = np.clip((lam_high - q) / (p - q), 0.0, 1.0)
    return low, high
