"""Trade-off functions (f-DP) of finite channels and their dominating pair.

A trade-off function ``T(P, B)(α)`` is the smallest type-II error of any test of
``H0: P`` against ``H1: B`` whose type-I error is at most ``α``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ldp.accounting.channels import as_channel
from ldp.arrays import AnyArray


def as_alphas(alphas: ArrayLike) -> AnyArray:
    """Return type-I errors as a float array, refusing values outside [0, 1]."""
    grid = np.asarray(alphas, dtype=float)
    if np.any(~(grid >= 0) | ~(grid <= 1)):
        raise ValueError(f"type-I errors α must lie in [0, 1], got {alphas!r}")
    return grid


def roc_points(null: AnyArray, alternative: AnyArray) -> tuple[AnyArray, ...]:
    """Return the vertices ``(α_j, β_j)`` of ``T(null, alternative)``.

    Outputs are rejected in decreasing order of the likelihood ratio
    ``alternative / null`` (Neyman–Pearson); outputs impossible under the null
    are rejected first at no type-I cost.  ``α`` is strictly increasing from 0
    and the trade-off function is the linear interpolation of the vertices.
    """
    keep = (null > 0) | (alternative > 0)
    null, alternative = null[keep], alternative[keep]
    with np.errstate(divide="ignore"):
        ratio = np.log(alternative) - np.log(null)
    order = np.argsort(-ratio, kind="stable")
    null, alternative = null[order], alternative[order]
    possible = null > 0
    hole = alternative[~possible].sum()
    alpha = np.concatenate([[0.0], np.cumsum(null[possible])])
    beta = 1.0 - hole - np.concatenate([[0.0], np.cumsum(alternative[possible])])
    # rejecting every output: exactly (1, 0), whatever the float sums say
    alpha[-1], beta[-1] = 1.0, 0.0
    return alpha, np.clip(beta, 0.0, 1.0)


def _ordered_pairs(k: int) -> list[tuple[int, int]]:
    return [(x, x2) for x in range(k) for x2 in range(k) if x != x2]


def tradeoff_curve(Q: ArrayLike, alphas: ArrayLike, *, convex: bool = True) -> AnyArray:
    """Return the exact trade-off function of a channel at the given α.

    Parameters
    ----------
    Q : array_like, shape (k, m)
        Channel ``Q[x, y] = P(report y | true answer x)``.
    alphas : array_like
        Type-I errors in [0, 1].
    convex : bool, default True
        Return the convex envelope ``f`` (a proper trade-off function: the
        largest f for which the channel is f-DP).  With ``False``, return the
        pointwise minimum over pairs, which need not be convex.

    Returns
    -------
    ndarray
        ``T(α)`` with the shape of ``alphas``.

    Notes
    -----
    ``T(α) = min_{x ≠ x'} T(Q[x, ·], Q[x', ·])(α)``.  For one ordered pair the
    most powerful randomized test (Neyman–Pearson) rejects outputs in
    decreasing order of ``Q[x', y] / Q[x, y]``, randomizing on the boundary
    output, so each pairwise ``T`` is the piecewise-linear curve through
    ``(Σ_{j≤i} Q[x, y_j], 1 − Σ_{j≤i} Q[x', y_j])``.  A minimum of convex
    curves can have kinks that point up; its convex envelope ``f``
    (:func:`dominating_pair`) has the same privacy profile δ(ε) and is what
    f-DP composition uses.  For symmetric channels (randomized response, GRR)
    the two coincide.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy",
       J. R. Stat. Soc. B 84 (2022), Def. 2.1 and 2.3, Prop. 2.2.
    .. [2] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015 (hypothesis-testing view of DP).
    """
    grid = as_alphas(alphas)
    if convex:
        pair = dominating_pair(Q)
        return np.interp(grid, pair.alphas, pair.betas)
    channel = as_channel(Q)
    flat = grid.ravel()
    best = 1.0 - flat
    for x, x2 in _ordered_pairs(channel.shape[0]):
        alpha, beta = roc_points(channel[x], channel[x2])
        best = np.minimum(best, np.interp(flat, alpha, beta))
    return best.reshape(grid.shape)


def epsilon_dp_tradeoff(
    epsilon: float, alphas: ArrayLike, delta: float = 0.0
) -> AnyArray:
    """Return the trade-off function ``f_{ε,δ}`` of (ε, δ)-DP.

    Parameters
    ----------
    epsilon : float
        ε >= 0 (``inf`` gives the trivial curve 0 for α > 0).
    alphas : array_like
        Type-I errors in [0, 1].
    delta : float, default 0
        δ in [0, 1].

    Returns
    -------
    ndarray
        ``f_{ε,δ}(α)`` with the shape of ``alphas``.

    Notes
    -----
    ``f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε} (1 − δ − α))``.  A mechanism is
    (ε, δ)-DP exactly when it is ``f_{ε,δ}``-DP; binary randomized response
    with ``P(truth) = e^ε / (1 + e^ε)`` attains ``f_{ε,0}``.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Prop. 2.5.
    .. [2] P. Kairouz, S. Oh and P. Viswanath (2015), Theorem 2.1.
    """
    if not epsilon >= 0 or not 0 <= delta <= 1:
        raise ValueError(f"need ε >= 0 and δ in [0, 1], got ε={epsilon}, δ={delta}")
    grid = as_alphas(alphas)
    with np.errstate(over="ignore", invalid="ignore"):
        steep = np.where(grid > 0, 1.0 - delta - np.exp(epsilon) * grid, 1.0 - delta)
    flat = np.exp(-epsilon) * (1.0 - delta - grid)
    curve: AnyArray = np.maximum(0.0, np.maximum(steep, flat))
    return curve


@dataclass(frozen=True, eq=False)
class DominatingPair:
    """Two distributions whose trade-off function is the channel's tight f.

    Attributes
    ----------
    null : ndarray
        ``P̃``: mass of each atom under the null hypothesis.
    alternative : ndarray
        ``B̃``: mass of each atom under the alternative.
    alphas, betas : ndarray
        Vertices of the convex piecewise-linear trade-off function
        ``f = T(P̃, B̃)``, from ``(0, f(0))`` to ``(1, 0)``.
    """

    null: AnyArray
    alternative: AnyArray
    alphas: AnyArray
    betas: AnyArray


def _all_roc_points(channel: AnyArray) -> Iterator[AnyArray]:
    """ROC vertices of every ordered pair, vectorised over the alternative."""
    k = channel.shape[0]
    with np.errstate(divide="ignore"):
        log_q = np.log(channel)
    for x in range(k):
        others = np.delete(np.arange(k), x)
        if others.size == 0:
            break
        null, alternative = channel[x], channel[others]
        with np.errstate(invalid="ignore"):
            ratio = log_q[others] - log_q[x][None, :]
        ratio = np.where(alternative > 0, ratio, -np.inf)  # 0/0 and B = 0 last
        order = np.argsort(-ratio, axis=1, kind="stable")
        alpha = np.cumsum(null[order], axis=1)
        beta = 1.0 - np.cumsum(np.take_along_axis(alternative, order, axis=1), axis=1)
        alpha[:, -1], beta[:, -1] = 1.0, 0.0
        yield np.column_stack([alpha.ravel(), np.clip(beta.ravel(), 0, 1)])


def _hull_of(points: AnyArray) -> AnyArray:
    """Lower convex hull of points in the unit square, from (0, min β)."""
    points = points[np.argsort(points[:, 0])]
    # only points not dominated by one with smaller α and β can be vertices
    # (at equal α a higher β that comes first is popped by the chain)
    lowest_before = np.minimum.accumulate(points[:, 1])
    keep = np.concatenate([[True], points[1:, 1] < lowest_before[:-1]])
    hull = _lower_hull(points[keep])
    # kept β strictly decrease, so of several first points at the same α the
    # last is the lowest; the chain cannot pop below two points, so trim here
    while len(hull) > 1 and hull[1, 0] == hull[0, 0]:
        hull = hull[1:]
    return hull


def _lower_hull(points: AnyArray) -> AnyArray:
    """Lower convex hull (Andrew's monotone chain) of points sorted by (α, β)."""
    hull: list[tuple[float, float]] = []
    for a, b in points:
        while len(hull) >= 2:
            (a1, b1), (a2, b2) = hull[-2], hull[-1]
            if (a2 - a1) * (b - b1) - (b2 - b1) * (a - a1) <= 0:
                hull.pop()
            else:
                break
        hull.append((float(a), float(b)))
    return np.array(hull)


def dominating_pair(Q: ArrayLike) -> DominatingPair:
    """Return a pair ``(P̃, B̃)`` whose trade-off function is the channel's f.

    Parameters
    ----------
    Q : array_like, shape (k, m)
        Channel ``Q[x, y] = P(report y | true answer x)``.

    Returns
    -------
    DominatingPair
        ``T(P̃, B̃) = f``, the convex envelope of :func:`tradeoff_curve`.

    Notes
    -----
    ``f`` is the lower convex hull of the vertices of every pairwise trade-off
    curve (each is convex and piecewise linear).  With hull vertices
    ``(a_i, b_i)``: ``P̃_i = a_i − a_{i−1}``, ``B̃_i = b_{i−1} − b_i``, plus an
    atom ``(0, 1 − f(0))`` when the channel has a hole.  The channel is f-DP,
    its privacy profile equals ``H_{e^ε}(B̃ ‖ P̃)`` for every ε, and by the f-DP
    composition theorem independent channels compose to ``⊗_j f_j``, the
    trade-off function of the product pair; so this pair is the right input to
    privacy-loss-distribution accounting.

    References
    ----------
    .. [1] J. Dong, A. Roth and W. J. Su (2022), Prop. 2.12 and Theorem 3.2.
    .. [2] Y. Zhu, J. Dong and Y.-X. Wang, "Optimal Accounting of Differential
       Privacy via Characteristic Function", AISTATS 2022 (dominating pairs).
    """
    channel = as_channel(Q)
    corners = np.array([[0.0, 1.0], [1.0, 0.0]])
    # the hull of a union is the hull of the parts' hulls: reduce per answer x
    parts = [_hull_of(np.vstack([corners, p])) for p in _all_roc_points(channel)]
    hull = _hull_of(np.vstack([corners, *parts]))
    # the chain starts at (0, f(0)); end it exactly at (1, 0) (float sums of a
    # row may land a hair either side of 1)
    hull = np.vstack([hull[hull[:, 0] < 1.0], [[1.0, 0.0]]])
    alphas, betas = hull[:, 0], hull[:, 1]
    null = np.concatenate([[0.0], np.diff(alphas)])
    alternative = np.concatenate([[1.0 - betas[0]], -np.diff(betas)])
    return DominatingPair(null, np.clip(alternative, 0.0, 1.0), alphas, betas)
