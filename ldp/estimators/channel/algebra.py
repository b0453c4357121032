"""Finite-channel algebra: channel inversion, score vectors and the EM MLE.

Everything here is post-processing of the report histogram ``c_y`` of a
channel ``Q[x, y] = P(report y | answer x)``.
"""

from __future__ import annotations

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.mean import MeanEstimate, mean_estimate

CONDITION_MAX = 1e6
"""Largest condition number of ``Q`` for which answer shares are reported:
beyond it inverting the channel amplifies the noise so much that the shares
carry no usable information (their mean is still estimated)."""


def score_vector(channel: FloatArray, values: FloatArray) -> tuple[FloatArray, float]:
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
    .. [1] docs/maths.md, section 5 (unbiased mean for any channel).
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


def inversion_matrix(channel: FloatArray) -> FloatArray:
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
    .. [1] docs/maths.md, section 6.
    """
    return np.linalg.pinv(np.asarray(channel, dtype=float).T)


def channel_inversion(channel: FloatArray) -> tuple[FloatArray | None, bool]:
    """The inversion matrix of a channel and whether it identifies the shares.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        ``Q[x, y] = P(report y | answer x)``.

    Returns
    -------
    inversion : ndarray or None
        ``A = (Qᵀ)⁺`` (:func:`inversion_matrix`); None when the channel has
        fewer outputs than inputs (Duchi), so no linear map recovers the
        shares.
    identifiable : bool
        True when ``A`` exists and the condition number of ``Q`` is below
        :data:`CONDITION_MAX`.

    Notes
    -----
    ``cond(Q) = σ_max/σ_min`` bounds how much ``A`` amplifies the error of
    ``c/n``; a numerically singular channel (a wide Gaussian kernel) has an
    unbiased but useless inversion.

    References
    ----------
    .. [1] docs/maths.md, section 6.

    Examples
    --------
    >>> inversion, identifiable = channel_inversion(np.array([[0.75, 0.25],
    ...                                                       [0.25, 0.75]]))
    >>> inversion
    array([[ 1.5, -0.5],
           [-0.5,  1.5]])
    >>> identifiable
    True
    >>> channel_inversion(np.full((3, 2), 0.5))
    (None, False)
    """
    q = np.asarray(channel, dtype=float)
    if q.shape[1] < q.shape[0]:
        return None, False
    return inversion_matrix(q), bool(np.linalg.cond(q) < CONDITION_MAX)


def channel_mle(
    channel: FloatArray,
    counts: IntArray,
    tol: float = 1e-10,
    max_iter: int = 10_000,
) -> FloatArray:
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
    .. [3] docs/maths.md, section 6.
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


def score_mean(
    counts: IntArray,
    channel: FloatArray,
    values: FloatArray,
    *,
    mechanism: str,
    epsilon: float,
) -> MeanEstimate:
    """Unbiased mean of a finite channel's answers from its score vector.

    Parameters
    ----------
    counts : ndarray
        Report histogram ``c_y`` (``n >= 2``).
    channel : ndarray, shape (k, outputs)
        ``Q[x, y]``.
    values : ndarray, shape (k,)
        ``v_x``.
    mechanism : str
        Mechanism name (recorded).
    epsilon : float
        Delivered ε (recorded).

    Returns
    -------
    MeanEstimate
        ``μ̂ = Σ c_y s_y/n`` with ``s`` from :func:`score_vector`; its
        ``bias_bound`` is the score residual.

    See Also
    --------
    ldp.estimators.mean.mean_estimate : The average of given scores.

    Notes
    -----
    ``E[s[Y] | x] = (Q s)_x = v_x``, so the score mean is unbiased.

    References
    ----------
    .. [1] docs/maths.md, section 5.

    Examples
    --------
    >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> result = score_mean(np.array([60, 40]), q, np.array([0.0, 1.0]),
    ...                     mechanism="ordinal", epsilon=1.1)
    >>> round(result.estimate, 3)
    0.3
    """
    scores, bias = score_vector(channel, values)
    return mean_estimate(
        counts, scores, mechanism=mechanism, epsilon=epsilon, bias_bound=bias
    )
