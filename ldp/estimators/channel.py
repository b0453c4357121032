"""Estimators for finite channels: score means and channel inversion.

Everything here is post-processing of the report histogram ``c_y``.
"""

from __future__ import annotations

import numpy as np

from ldp.results_numeric import DistributionEstimate, MeanEstimate


def score_vector(channel: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, float]:
    """Minimum-norm score ``s`` with ``Q s = v``, and its worst-case residual.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        ``Q[x, y] = P(report y | answer x)``.
    values : ndarray, shape (k,)
        ``v_x``, the value of each answer.

    Returns
    -------
    scores : ndarray, shape (outputs,)
        ``s = Q⁺ v`` (least squares, minimum norm).
    bias : float
        ``max_x |(Q s)_x − v_x|``: zero up to rounding when ``v`` is in the
        range of ``Q``, else the worst-case bias of the score mean.

    Notes
    -----
    Square ``Q``: ``s = Q⁻¹ v``; wide ``Q`` (more outputs than inputs):
    ``s = Qᵀ (Q Qᵀ)⁻¹ v``, the minimum-norm solution; otherwise (or when
    those are inaccurate) the SVD least-squares solution.
    ``E[s[Y] | x] = (Q s)_x``, so when ``Q s = v`` the average of ``s[y_i]`` is
    unbiased for the mean of the true values.

    References
    ----------
    .. [1] Deniable LDP primer, section 5 ("Unbiased mean for any channel").
    """
    q = np.asarray(channel, dtype=float)
    v = np.asarray(values, dtype=float)
    tolerance = 1e-9 * (float(np.max(np.abs(v))) + 1.0)
    fast = None
    try:
        if q.shape[0] == q.shape[1]:
            fast = np.linalg.solve(q, v)
        elif q.shape[1] > q.shape[0]:
            fast = q.T @ np.linalg.solve(q @ q.T, v)
    except np.linalg.LinAlgError:
        fast = None
    if fast is not None and np.all(np.isfinite(fast)):
        residual = float(np.max(np.abs(q @ fast - v)))
        if residual <= tolerance:
            return fast, residual
    scores = np.linalg.lstsq(q, v, rcond=None)[0]
    return scores, float(np.max(np.abs(q @ scores - v)))


def mean_estimate(
    counts: np.ndarray,
    scores: np.ndarray,
    *,
    mechanism: str,
    epsilon: float,
    bias_bound: float = 0.0,
) -> MeanEstimate:
    """Mean of the scores of the reports, with the sample-variance SE.

    Parameters
    ----------
    counts : ndarray
        Report histogram ``c_y`` (``n = Σ c_y >= 2``).
    scores : ndarray
        Score vector ``s``.
    mechanism : str
        Mechanism name (recorded).
    epsilon : float
        Delivered ε (recorded).
    bias_bound : float, optional
        ``max_x |(Q s)_x − v_x|`` (recorded).

    Returns
    -------
    MeanEstimate
        ``μ̂ = Σ c_y s_y/n``, ``SE = sqrt(S²/n)``.

    Notes
    -----
    ``S² = (Σ c_y s_y² − n μ̂²)/(n − 1)`` is the sample variance of the
    ``s[y_i]``; it is unbiased for the variance of one score whatever the mix
    of true answers, so the interval is ``μ̂ ± t_{n−1} SE``.

    References
    ----------
    .. [1] Deniable LDP primer, section 5.
    """
    n = int(np.asarray(counts, dtype=np.int64).sum())
    c = np.asarray(counts, dtype=float)
    s = np.asarray(scores, dtype=float)
    if n < 2:
        raise ValueError(f"need at least 2 reports, got {n}")
    mean = float(c @ s / n)
    centred = s - mean
    variance = float(c @ (centred * centred) / (n - 1))
    return MeanEstimate(
        n=n,
        estimate=mean,
        standard_error=float(np.sqrt(variance / n)),
        mechanism=mechanism,
        epsilon=epsilon,
        bias_bound=bias_bound,
    )


def inversion_matrix(channel: np.ndarray) -> np.ndarray:
    """``A = (Qᵀ)⁺``: maps report shares ``λ`` to answer shares ``f``.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        With ``outputs >= k`` and full row rank.

    Returns
    -------
    ndarray, shape (k, outputs)
        The inverse of ``Qᵀ`` (square) or its least-squares pseudo-inverse.

    Notes
    -----
    ``A Qᵀ = I``, so ``A c/n`` is unbiased for ``f``.

    References
    ----------
    .. [1] Deniable LDP primer, section 6.
    """
    return np.linalg.pinv(np.asarray(channel, dtype=float).T)


def distribution_estimate(
    counts: np.ndarray,
    channel: np.ndarray,
    values: np.ndarray,
    *,
    mechanism: str,
    epsilon: float,
) -> DistributionEstimate:
    """Unbiased answer shares by channel inversion, with sandwich covariance.

    Parameters
    ----------
    counts : ndarray, shape (outputs,)
        Report histogram.
    channel : ndarray, shape (k, outputs)
        ``Q[x, y]``.
    values : ndarray, shape (k,)
        The value of each answer (for the mean).
    mechanism : str
        Mechanism name (recorded).
    epsilon : float
        Delivered ε (recorded).

    Returns
    -------
    DistributionEstimate
        ``f̂ = A c/n`` and ``Cov = A [diag(λ̂) − λ̂λ̂ᵀ] Aᵀ/n``, ``λ̂ = c/n``.

    Notes
    -----
    ``c ~ Multinomial(n, Qᵀ f)``; ``Cov(c/n) = (diag(λ) − λλᵀ)/n``.

    References
    ----------
    .. [1] Deniable LDP primer, section 6.
    .. [2] D. Agrawal, C. C. Aggarwal, PODS 2001.
    """
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    if n < 2:
        raise ValueError(f"need at least 2 reports, got {n}")
    a = inversion_matrix(channel)
    shares = c / n
    estimate = a @ shares
    middle = np.diag(shares) - np.outer(shares, shares)
    covariance = a @ middle @ a.T / n
    return DistributionEstimate(
        n=n,
        estimate=estimate,
        covariance=covariance,
        counts=c.copy(),
        channel=np.asarray(channel, dtype=float),
        values=np.asarray(values, dtype=float),
        mechanism=mechanism,
        epsilon=epsilon,
    )


def channel_mle(
    channel: np.ndarray,
    counts: np.ndarray,
    tol: float = 1e-10,
    max_iter: int = 10_000,
) -> np.ndarray:
    """Multinomial maximum-likelihood answer shares by EM on the channel.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        ``Q[x, y]``.
    counts : ndarray, shape (outputs,)
        Report histogram ``c_y``.
    tol : float, optional
        Stop when the mean log-likelihood per report gains less than ``tol``.
    max_iter : int, optional
        Iteration cap.

    Returns
    -------
    ndarray, shape (k,)
        Shares on the simplex.

    Notes
    -----
    Iterative Bayesian update
    ``f_x ← Σ_y (c_y/n) Q[x, y] f_x / Σ_x' Q[x', y] f_x'``; each step raises
    ``ℓ(f) = Σ_y (c_y/n) ln (Qᵀ f)_y``.  Stopping on the likelihood (not the
    shares) keeps boundary solutions, where EM creeps, fast; the stopping
    error in ``ℓ`` is far below the sampling error.

    References
    ----------
    .. [1] D. Agrawal, C. C. Aggarwal, PODS 2001.
    .. [2] T. Wang et al., NDSS 2020, section 4 (MLE-based consistency).
    .. [3] Deniable LDP primer, section 6.
    """
    q = np.asarray(channel, dtype=float)
    shares = np.asarray(counts, dtype=float)
    shares = shares / shares.sum()
    used = shares > 0
    q_used, shares_used = q[:, used], shares[used]
    f = np.full(q.shape[0], 1.0 / q.shape[0])
    previous = -np.inf
    for _ in range(max_iter):
        predicted = f @ q_used
        likelihood = float(shares_used @ np.log(predicted))
        if likelihood - previous < tol:
            break
        previous = likelihood
        f = f * (q_used @ (shares_used / predicted))
        f /= f.sum()
    return f
