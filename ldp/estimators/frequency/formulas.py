"""Frequency-oracle formulas: unbiased shares, their errors, intervals, variances.

Every oracle's support count ``C_v`` is Binomial(n, λ_v) with
``λ_v = q_v + f_v (p_v − q_v)``, so one set of formulas serves them all.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.intervals import check_method, critical_value

METHODS = ("exact", "wilson", "wald")
CONSISTENT_METHODS = ("norm-sub", "mle")


def unbiased(counts: IntArray, n: int, p: FloatArray, q: FloatArray) -> FloatArray:
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
    .. [2] docs/maths.md, section 3.
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    return (np.asarray(counts, dtype=float) / n - q) / (p - q)


def standard_error(
    counts: IntArray, n: int, p: FloatArray, q: FloatArray
) -> FloatArray:
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
    .. [2] docs/maths.md, section 3.
    """
    lam = np.asarray(counts, dtype=float) / n
    return np.sqrt(lam * (1.0 - lam) / n) / (p - q)


def variance(f: FloatArray, n: int, p: FloatArray, q: FloatArray) -> FloatArray:
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
    .. [2] docs/maths.md, section 3.
    """
    lam = q + np.asarray(f, dtype=float) * (p - q)
    return lam * (1.0 - lam) / (n * (p - q) ** 2)


def confidence_bounds(
    counts: IntArray,
    n: int,
    p: FloatArray,
    q: FloatArray,
    level: float = 0.95,
    method: str = "exact",
    simultaneous: bool = False,
    top: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Return per-value confidence bounds for the shares ``f_v``.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v``.
    n : int
        Number of reports (at least 1).
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.
    level : float, optional
        Confidence level ``1 − α`` in (0, 1).
    method : {"exact", "wilson", "wald"}, optional
        Interval construction.
    simultaneous : bool, optional
        Use ``α/k`` per value (Bonferroni).
    top : ndarray, optional
        The support probability ``λ`` of the largest possible share (``p``,
        the default, for a share of 1; smaller for multi-select scales).

    Returns
    -------
    low, high : ndarray
        Bounds for each ``f_v``, never of zero width; within
        ``[0, (top − q)/(p − q)]`` except Wald's.

    Notes
    -----
    Only ``λ_v`` in ``[q_v, top_v]`` is possible.  Exact (Clopper–Pearson)
    and Wilson intervals are computed from the count moved into its possible
    range, ``C'_v = min(max(C_v, n q_v), n top_v)`` (the bounds accept a
    fractional count through the beta quantile):
    ``λ_L = B^{-1}(α/2; C', n − C' + 1)``,
    ``λ_U = B^{-1}(1 − α/2; C' + 1, n − C')``; Wilson
    ``(C' + z²/2)/(n + z²) ± z/(n + z²) sqrt(C'(n − C')/n + z²/4)``.  Both
    bounds grow with the count, so moving it towards the possible range keeps
    every possible ``λ`` the original interval covered, and an interval at a
    possible count has positive width, so it never collapses to a point at
    0 or 1 (the clipping of an interval lying wholly outside the range did).
    Bounds map through ``(λ − q)/(p − q)`` and are clipped to the range.
    Wald, the textbook interval kept for comparison: ``f̂ ± z·SE'``,
    unclipped, with ``SE'² = max(SE², min(q(1 − q), top(1 − top))/(n (p −
    q)²))``: the variance of one report is at least its smallest possible
    value, so a sample of identical reports cannot give a point.

    References
    ----------
    .. [1] C. J. Clopper, E. S. Pearson, Biometrika 26(4), 1934.
    .. [2] E. B. Wilson, JASA 22(158), 1927.
    .. [3] G. J. Feldman, R. D. Cousins, "Unified approach to the classical
       statistical analysis of small signals", Phys. Rev. D 57, 1998 (why an
       interval must not be emptied or collapsed at a physical boundary).
    .. [4] docs/maths.md, section 2 (exact CI), section 3 and section 6.8.
    """
    check_method(method, METHODS)
    if n < 1:
        raise ValueError(f"need at least 1 report, got {n}")
    c = np.asarray(counts, dtype=float)
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    ceiling = p if top is None else np.asarray(top, dtype=float)
    highest = (ceiling - q) / (p - q)
    tests = c.size if simultaneous else 1
    z = critical_value(level, tests=tests)
    if method == "wald":
        center = unbiased(counts, n, p, q)
        floor = np.minimum(q * (1 - q), ceiling * (1 - ceiling)) / n / (p - q) ** 2
        se = np.sqrt(np.maximum(standard_error(counts, n, p, q) ** 2, floor))
        return center - z * se, center + z * se
    c = np.clip(c, n * q, n * ceiling)
    alpha = (1.0 - level) / tests
    if method == "exact":
        safe_low = np.maximum(c, 1e-12)
        safe_high = np.minimum(c, n - 1e-12)
        lam_low = np.where(
            c > 0, stats.beta.ppf(alpha / 2, safe_low, n - safe_low + 1), 0.0
        )
        lam_high = np.where(
            c < n,
            stats.beta.ppf(1 - alpha / 2, safe_high + 1, n - safe_high),
            1.0,
        )
    else:
        center = (c + z**2 / 2) / (n + z**2)
        half = z / (n + z**2) * np.sqrt(c * (n - c) / n + z**2 / 4)
        lam_low, lam_high = center - half, center + half
    low = np.clip((lam_low - q) / (p - q), 0.0, highest)
    high = np.clip((lam_high - q) / (p - q), 0.0, highest)
    return low, high


def worst_case_variance(p: FloatArray, q: FloatArray) -> float:
    """Per-report variance of ``f̂_v``, worst case over the true share and v.

    Parameters
    ----------
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.

    Returns
    -------
    float
        ``max_v max_{λ in [q_v, p_v]} λ(1 − λ)/(p_v − q_v)^2``.

    Notes
    -----
    ``λ(1 − λ)`` is largest at the point of ``[q_v, p_v]`` closest to 1/2.
    For Warner's design this is ``((e^ε + 1)/(e^ε − 1))^2/4``.

    References
    ----------
    .. [1] S. L. Warner, "Randomized response", JASA 60(309), 1965.
    .. [2] docs/maths.md, sections 2 and 7.

    Examples
    --------
    >>> worst_case_variance(np.array([0.75]), np.array([0.25]))
    1.0
    """
    lam = np.clip(0.5, q, p)
    return float(np.max(lam * (1 - lam) / (p - q) ** 2))


def variance_at_zero(p: FloatArray, q: FloatArray) -> float:
    """Per-report variance of ``f̂_v`` at ``f_v = 0``, worst case over v.

    Parameters
    ----------
    p, q : ndarray
        Realised ``p*_v`` and ``q*_v``.

    Returns
    -------
    float
        ``max_v q_v (1 − q_v)/(p_v − q_v)^2``.

    Notes
    -----
    For GRR this is ``(e^ε + k − 2)/(e^ε − 1)^2`` and for OUE
    ``4 e^ε/(e^ε − 1)^2``: the criterion used to choose among oracles.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4, eqs. (4), (9), (12).
    .. [2] docs/maths.md, section 3.

    Examples
    --------
    >>> variance_at_zero(np.array([0.75]), np.array([0.25]))
    0.75
    """
    return float(np.max(q * (1 - q) / (p - q) ** 2))
