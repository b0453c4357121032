"""Consistent estimates: non-negative frequencies that sum to one.

Post-processing of the reports only, so they cost no privacy.
"""

from __future__ import annotations

import numpy as np

from ldp.arrays import FloatArray, IntArray


def project_simplex(estimate: FloatArray) -> FloatArray:
    """Project estimates onto the probability simplex (Norm-Sub).

    Parameters
    ----------
    estimate : ndarray
        Unbiased estimates ``f̂`` (any real numbers).

    Returns
    -------
    ndarray
        ``argmin_{f in simplex} ||f − f̂||_2``.

    Notes
    -----
    ``f̃_v = max(f̂_v + δ, 0)`` with δ chosen so that ``Σ_v f̃_v = 1``; δ is
    found by sorting (Held, Wolfe, Crowder 1974; Duchi et al. 2008).

    References
    ----------
    .. [1] T. Wang et al., "Locally differentially private frequency estimation
       with consistency", NDSS 2020, section 4.3 (Norm-Sub).
    .. [2] docs/maths.md, section 6.
    """
    values = np.asarray(estimate, dtype=float)
    ordered = np.sort(values)[::-1]
    cumulative = np.cumsum(ordered) - 1.0
    ranks = np.arange(1, values.size + 1)
    active = ordered - cumulative / ranks > 0
    rho = int(np.nonzero(active)[0][-1])
    delta = -cumulative[rho] / (rho + 1)
    projected: FloatArray = np.maximum(values + delta, 0.0)
    return projected


def em_channel(
    channel: FloatArray,
    counts: IntArray,
    n: int,
    tol: float = 1e-10,
    max_iter: int = 20_000,
) -> FloatArray:
    """Maximum-likelihood frequencies for a finite channel by EM.

    Parameters
    ----------
    channel : ndarray
        ``Q[x, y] = P(report y | answer x)``, rows summing to 1.
    counts : ndarray
        Report histogram ``c_y``.
    n : int
        Number of reports.
    tol : float, optional
        Stop when the largest change of a share is below ``tol``.
    max_iter : int, optional
        Iteration cap.

    Returns
    -------
    ndarray
        The EM fixed point, on the simplex.

    Notes
    -----
    Iterative Bayesian update:
    ``f_x ← Σ_y (c_y/n) Q[x, y] f_x / Σ_x' Q[x', y] f_x'``; the multinomial
    log-likelihood ``Σ_y c_y log (Qᵀf)_y`` increases at every step.

    References
    ----------
    .. [1] D. Agrawal, C. C. Aggarwal, "On the design and quantification of
       privacy preserving data mining algorithms", PODS 2001.
    .. [2] T. Wang et al., NDSS 2020, section 4 (MLE-based consistency).
    .. [3] docs/maths.md, section 6.
    """
    channel = np.asarray(channel, dtype=float)
    shares = np.asarray(counts, dtype=float) / n
    f = np.full(channel.shape[0], 1.0 / channel.shape[0])
    for _ in range(max_iter):
        predicted = channel.T @ f
        ratio = np.divide(
            shares, predicted, out=np.zeros_like(shares), where=shares > 0
        )
        updated: FloatArray = f * (channel @ ratio)
        updated /= updated.sum()
        if np.max(np.abs(updated - f)) < tol:
            return updated
        f = updated
    return f


def _support_root(
    mu: float, counts: FloatArray, n: int, p: FloatArray, q: FloatArray
) -> FloatArray:
    """Per-value ``f_v`` in [0, 1] where ``∂ℓ_v/∂f_v = mu`` (clipped).

    With ``m = mu/d`` the stationarity condition ``C/λ − (n − C)/(1 − λ) = m``
    is ``m λ^2 − (m + n) λ + C = 0``; its root in [0, 1] is
    ``2C/((m + n) + sqrt((m + n)^2 − 4 m C))`` (and ``1 + n/m`` when ``C = 0``
    and ``m < −n``).
    """
    d = p - q
    m = mu / d
    total = m + n
    root = np.sqrt(np.maximum(total**2 - 4 * m * counts, 0.0))
    denominator = total + root
    empty = (counts == 0) & (total < 0)
    safe = np.where(denominator > 0, denominator, 1.0)
    lam = np.where(denominator > 0, 2 * counts / safe, 0.0)
    lam = np.where(empty, 1 + n / np.where(empty, m, -1.0), lam)
    return np.clip((lam - q) / d, 0.0, 1.0)


def binomial_mle(
    counts: IntArray, n: int, p: FloatArray, q: FloatArray, steps: int = 200
) -> FloatArray:
    """Maximise the binomial support-count likelihood over the simplex.

    Parameters
    ----------
    counts : ndarray
        Support counts ``C_v``.
    n : int
        Number of reports.
    p, q : ndarray
        Realised ``p*_v``, ``q*_v`` (``0 < q_v < p_v < 1``).
    steps : int, optional
        Bisection steps for the multiplier μ.

    Returns
    -------
    ndarray
        ``argmax_{f in simplex} Σ_v C_v log λ_v + (n − C_v) log(1 − λ_v)``,
        ``λ_v = q_v + f_v (p_v − q_v)``.

    Notes
    -----
    The objective is separable and concave, so by the KKT conditions each
    ``f_v`` solves ``∂ℓ_v/∂f_v = μ`` (clipped to [0, 1]) for a common
    multiplier μ; each ``f_v(μ)`` is the root of a quadratic, and
    ``Σ_v f_v(μ)`` decreases in μ, so μ is found by bisection.  For unary
    encoding, OLH and Hadamard reports the C_v are dependent, so this is a
    composite (pseudo-) likelihood estimate.

    References
    ----------
    .. [1] T. Wang et al., NDSS 2020, section 4 (MLE-based post-processing).
    .. [2] docs/maths.md, section 6.
    """
    c = np.asarray(counts, dtype=np.float64)
    d = p - q
    bound = float(np.max(d * n / np.minimum(q, 1 - p))) + 1.0
    mu_low, mu_high = -bound, bound
    for _ in range(steps):
        mu = (mu_low + mu_high) / 2
        total = _support_root(mu, c, n, p, q).sum()
        if total > 1.0:
            mu_low = mu
        else:
            mu_high = mu
    f = _support_root((mu_low + mu_high) / 2, c, n, p, q)
    return project_simplex(f)


def multinomial_mle(counts: IntArray, p: FloatArray, q: FloatArray) -> FloatArray:
    """Exact maximum-likelihood frequencies when each report is one answer.

    Parameters
    ----------
    counts : ndarray
        Report histogram ``c_y`` (for GRR and binary mechanisms the support
        counts are exactly this histogram).
    p, q : ndarray
        Realised ``p*_y``, ``q*_y``, with ``d = p_y − q_y`` equal for all y.

    Returns
    -------
    ndarray
        ``argmax_{f in simplex} Σ_y c_y log(q_y + d f_y)``: the fixed point of
        the EM iteration of :func:`em_channel` for these channels.

    Notes
    -----
    For GRR and forced response ``(Qᵀ f)_y = q_y + d f_y``, so the likelihood
    is separable.  The KKT conditions give ``f_y = max(0, c_y/μ − q_y/d)``
    with μ fixed by ``Σ_y f_y = 1`` ("water-filling"); sorting the thresholds
    ``c_y d/q_y`` finds μ exactly, where EM converges only sublinearly when the
    maximum lies on the boundary of the simplex.

    References
    ----------
    .. [1] D. Agrawal, C. C. Aggarwal, PODS 2001 (EM for randomized data).
    .. [2] T. Wang et al., NDSS 2020, section 4 (MLE-based consistency).
    .. [3] docs/maths.md, section 6.
    """
    counts = np.asarray(counts, dtype=float)
    d = float(np.max(p - q))
    offsets = q / d
    order = np.argsort(-counts / offsets)
    mu = 0.0
    for size in range(1, counts.size + 1):
        active = order[:size]
        mu = counts[active].sum() / (1.0 + offsets[active].sum())
        nxt = order[size] if size < counts.size else None
        if nxt is None or counts[nxt] / mu <= offsets[nxt]:
            break
    f = np.maximum(counts / mu - offsets, 0.0)
    shares: FloatArray = f / f.sum()
    return shares
