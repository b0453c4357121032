"""Multi-select formulas: shares of respondents selecting each option.

Both multi-select mechanisms give a support count ``C_v`` that is exactly
Binomial(n, λ_v) with ``λ_v = q + (p − q) f_v / L``, where ``p``, ``q`` are
the realised support probabilities of the integer weights and ``L`` is a
known scale: ``L = 1`` for per-option randomized response, ``L = ℓ`` for
padding-and-sampling (each respondent reports one of ``ℓ`` padded slots).
One estimator, one variance and one exact interval therefore serve both.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldp.arrays import FloatArray, IntArray
from ldp.estimators import frequency

CONSISTENT_METHODS = ("clip",)


def unbiased_shares(
    counts: IntArray, n: int, p: FloatArray, q: FloatArray, scale: int
) -> FloatArray:
    """Return the unbiased estimates of each option's share ``f̂_v``.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v`` of the k options.
    n : int
        Number of reports (``> 0``).
    p, q : ndarray or float
        Realised support probabilities.
    scale : int
        ``L``: 1 for per-option randomized response, ``ℓ`` for
        padding-and-sampling.

    Returns
    -------
    ndarray
        ``f̂_v = L (C_v/n − q)/(p − q)``; may lie outside [0, 1].

    Notes
    -----
    ``E[C_v/n] = λ_v = q + (p − q) f_v/L``, so ``f̂_v`` is unbiased.

    References
    ----------
    .. [1] T. Wang, N. Li, S. Jha, "Locally differentially private frequent
       itemset mining", IEEE S&P 2018, section 4 (padding-and-sampling).
    .. [2] T. Wang, J. Blocki, N. Li, S. Jha, USENIX Security 2017, eq. (1).
    """
    return scale * frequency.unbiased(counts, n, p, q)


def share_standard_error(
    counts: IntArray, n: int, p: FloatArray, q: FloatArray, scale: int
) -> FloatArray:
    """Return the plug-in standard errors of ``f̂_v``.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v``.
    n : int
        Number of reports.
    p, q : ndarray or float
        Realised support probabilities.
    scale : int
        ``L`` (1 or ``ℓ``).

    Returns
    -------
    ndarray
        ``L sqrt(λ̂_v (1 − λ̂_v)/n)/(p − q)`` with ``λ̂_v = C_v/n``.

    Notes
    -----
    ``Var f̂_v = L² λ_v (1 − λ_v)/(n (p − q)²)``, estimated by plug-in.

    References
    ----------
    .. [1] Wang et al., IEEE S&P 2018, section 4.
    .. [2] Wang et al., USENIX Security 2017, section 4.
    """
    return scale * frequency.standard_error(counts, n, p, q)


def share_variance(
    f: ArrayLike, n: int, p: FloatArray | float, q: FloatArray | float, scale: int
) -> FloatArray:
    """Return the exact variance of ``f̂_v`` at true shares ``f``.

    Parameters
    ----------
    f : array_like
        True shares of respondents selecting each option, in [0, 1].
    n : int
        Number of reports.
    p, q : ndarray or float
        Realised support probabilities.
    scale : int
        ``L`` (1 or ``ℓ``).

    Returns
    -------
    ndarray
        ``L² λ_v (1 − λ_v)/(n (p − q)²)``, ``λ_v = q + (p − q) f_v/L``.

    Notes
    -----
    Binomial variance of ``C_v/n`` scaled by ``(L/(p − q))²``, for
    respondents drawn at random from a population with shares ``f``.  For a
    fixed set of respondents the variance is smaller by
    ``L² f (1 − f)(λ¹ − λ⁰)²/(n (p − q)²)``, with ``λ¹ = q + (p − q)/L`` and
    ``λ⁰ = q`` the support probabilities with and without the option.

    References
    ----------
    .. [1] Wang et al., IEEE S&P 2018, section 4.
    """
    lam = q + (p - q) * np.asarray(f, dtype=float) / scale
    return scale**2 * lam * (1.0 - lam) / (n * (p - q) ** 2)


def worst_case_share_variance(p: float, q: float, scale: int) -> float:
    """Per-report variance of ``f̂_v``, worst case over the true share.

    Parameters
    ----------
    p, q : float
        Realised support probabilities.
    scale : int
        ``L`` (1 or ``ℓ``).

    Returns
    -------
    float
        ``max_{f in [0, 1]} n · Var f̂_v``.

    Notes
    -----
    ``λ`` ranges over ``[q, q + (p − q)/L]``; ``λ(1 − λ)`` is largest at the
    point of that range closest to 1/2.

    References
    ----------
    .. [1] Wang et al., IEEE S&P 2018, section 4.
    .. [2] docs/maths.md, section 7 (worst case over f).
    """
    high = q + (p - q) / scale
    lam = min(max(0.5, q), high)
    return float(scale**2 * lam * (1.0 - lam) / (p - q) ** 2)


def share_confidence_bounds(
    counts: IntArray,
    n: int,
    p: FloatArray,
    q: FloatArray,
    scale: int,
    level: float = 0.95,
    method: str = "exact",
    simultaneous: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """Return per-option confidence bounds for the shares ``f_v``.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v`` of the k options.
    n : int
        Number of reports.
    p, q : ndarray or float
        Realised support probabilities.
    scale : int
        ``L`` (1 or ``ℓ``).
    level : float, optional
        Confidence level ``1 − α`` in (0, 1).
    method : {"exact", "wilson", "wald"}, optional
        Clopper–Pearson (default), Wilson score, or Wald ``f̂ ± z·SE``.
    simultaneous : bool, optional
        Bonferroni: ``α/k`` per option so all k intervals hold jointly.

    Returns
    -------
    low, high : ndarray
        Bounds for each ``f_v``.

    Notes
    -----
    The interval for ``λ_v`` (Clopper–Pearson or Wilson) is mapped through
    ``f = L (λ − q)/(p − q)`` and clipped to [0, 1]; the map is increasing, so
    the coverage of the ``λ`` interval carries over.  Wald is
    ``f̂ ± z·SE`` and is not clipped (as for single-choice questions); every
    method keeps a positive width at the edges
    (:func:`ldp.estimators.frequency.formulas.confidence_bounds`).

    References
    ----------
    .. [1] C. J. Clopper, E. S. Pearson, Biometrika 26(4), 1934.
    .. [2] E. B. Wilson, JASA 22(158), 1927.
    .. [3] Wang et al., IEEE S&P 2018, section 4.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    low, high = frequency.confidence_bounds(
        counts,
        n,
        p,
        q,
        level=level,
        method=method,
        simultaneous=simultaneous,
        top=q + (p - q) / scale,
    )
    if method == "wald":
        return scale * low, scale * high
    return np.clip(scale * low, 0.0, 1.0), np.clip(scale * high, 0.0, 1.0)
