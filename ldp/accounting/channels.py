"""Exact privacy of a finite channel: pure ε, exact ε from integers, δ(ε).

A mechanism is a channel ``Q[x, y] = P(report y | true answer x)`` whose rows
sum to 1.  Everything here is a function of ``Q`` alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_CEILING, Context, Decimal, localcontext
from fractions import Fraction
from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike

from ldp.arrays import AnyArray

PRECISION = 60
"""Significant decimal digits of :func:`pure_epsilon_exact` (at least 50)."""

ROW_SUM_TOLERANCE = 1e-9
"""How far a row of a float channel may sum from 1 before it is refused."""


def as_channel(Q: ArrayLike) -> AnyArray:
    """Validate a channel matrix and return it as a float array with unit rows.

    Raises ``ValueError`` (echoing the problem) unless ``Q`` is a 2-D array of
    finite, non-negative numbers whose rows sum to 1 within 1e-9.
    """
    channel = np.array(Q, dtype=float)
    if channel.ndim != 2 or channel.shape[0] < 1 or channel.shape[1] < 1:
        raise ValueError(
            f"a channel must be a non-empty 2-D array Q[x, y], got shape "
            f"{channel.shape}"
        )
    if not np.all(np.isfinite(channel)) or np.any(channel < 0):
        raise ValueError(f"channel entries must be finite and >= 0, got {channel!r}")
    sums = channel.sum(axis=1)
    if np.any(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE):
        raise ValueError(f"every row of a channel must sum to 1, got row sums {sums}")
    normalised: AnyArray = channel / sums[:, None]
    return normalised


def pure_epsilon(Q: ArrayLike) -> float:
    """Return the exact (smallest) ε for which the channel is ε-LDP.

    Parameters
    ----------
    Q : array_like, shape (k, m)
        Channel ``Q[x, y] = P(report y | true answer x)``; rows sum to 1.

    Returns
    -------
    float
        ``ε(Q)``; ``inf`` if some column holds both a zero and a positive entry.

    Notes
    -----
    ``ε(Q) = max_y ln( max_x Q[x, y] / min_x Q[x, y] )`` over the columns that
    are not all zero.  A column with ``Q[x, y] = 0 < Q[x', y]`` (a "hole")
    reveals that the answer is not ``x``, so ``ε = ∞``.  Computed in floating
    point; for a displayed ε use :func:`pure_epsilon_exact` on the integer
    weights the sampler uses.

    References
    ----------
    .. [1] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Found. Trends Theor. Comput. Sci. 9 (2014), Def. 2.4.
    .. [2] docs/maths.md, section 1.
    """
    channel = as_channel(Q)
    high = channel.max(axis=0)
    low = channel.min(axis=0)
    used = high > 0
    if np.any(low[used] == 0):
        return math.inf
    if not np.any(used):  # pragma: no cover - rows sum to 1, so never empty
        return 0.0
    return float(np.max(np.log(high[used] / low[used])))


def _as_weights(weights: Sequence[Sequence[int]] | AnyArray) -> list[list[int]]:
    rows = [list(row) for row in weights]
    if not rows or not rows[0] or any(len(row) != len(rows[0]) for row in rows):
        raise ValueError(f"weights must be a non-empty rectangular matrix: {weights!r}")
    out: list[list[int]] = []
    for row in rows:
        if any(isinstance(w, bool) or not isinstance(w, Integral) for w in row):
            raise ValueError(f"weights must be integers, got row {row!r}")
        ints = [int(w) for w in row]
        if any(w < 0 for w in ints) or sum(ints) == 0:
            raise ValueError(
                f"weights must be >= 0 with a positive row sum, got row {ints!r}"
            )
        out.append(ints)
    return out


def pure_epsilon_exact(weights: Sequence[Sequence[int]] | AnyArray) -> Decimal:
    """Return the exact ε of an integer-weight channel, rounded up, as a Decimal.

    Parameters
    ----------
    weights : sequence of sequences of int, shape (k, m)
        Integer weights ``W[x][y] >= 0``; row ``x`` is sampled with probability
        ``W[x][y] / S_x``, ``S_x = Σ_y W[x][y]`` (row sums may differ).

    Returns
    -------
    Decimal
        ``ε`` with 60 significant digits, never below the true value;
        ``Decimal('Infinity')`` for a hole; ``Decimal(0)`` if all rows agree.

    Notes
    -----
    ``ε = max_y ln( max_x (W[x][y]/S_x) / min_x (W[x][y]/S_x) )``.  The largest
    ratio is found exactly with fractions; its logarithm is computed with 80
    digits, padded by a bound on the rounding error and rounded towards
    +∞ to 60 digits.  Use :func:`float_up` to get a float that is still ≥ ε.

    References
    ----------
    .. [1] C. Dwork and A. Roth (2014), Def. 2.4.
    .. [2] docs/maths.md, section 1 (integer weights).
    """
    rows = _as_weights(weights)
    sums = [sum(row) for row in rows]
    worst = Fraction(1)
    for y in range(len(rows[0])):
        column = [Fraction(row[y], s) for row, s in zip(rows, sums, strict=True)]
        high, low = max(column), min(column)
        if high == 0:
            continue
        if low == 0:
            return Decimal("Infinity")
        worst = max(worst, high / low)
    if worst == 1:
        return Decimal(0)
    with localcontext(Context(prec=PRECISION + 20)):
        value = (Decimal(worst.numerator) / Decimal(worst.denominator)).ln()
        # Division and ln each err by at most one unit in the 80th digit.
        pad = Decimal(1).scaleb(value.adjusted() - PRECISION - 15)
        padded = value + pad
    with localcontext(Context(prec=PRECISION, rounding=ROUND_CEILING)):
        return +padded


def float_up(value: Decimal) -> float:
    """Return the smallest float that is ≥ ``value`` (rounding towards +∞).

    Parameters
    ----------
    value : Decimal
        Any Decimal, e.g. from :func:`pure_epsilon_exact`.

    Returns
    -------
    float
        ``f`` with ``Decimal(f) >= value``; never understates a privacy loss.

    Notes
    -----
    ``float(value)`` rounds to nearest; if that fell below ``value`` the next
    float up is returned instead.

    References
    ----------
    .. [1] docs/maths.md, section 1 (ε is rounded up for display).
    """
    nearest = float(value)
    if math.isfinite(nearest) and Decimal(nearest) < value:
        return math.nextafter(nearest, math.inf)
    return nearest


def as_epsilons(epsilons: ArrayLike) -> AnyArray:
    """Return ``epsilons`` as a float array, refusing NaN."""
    grid = np.asarray(epsilons, dtype=float)
    if np.any(np.isnan(grid)):
        raise ValueError(f"epsilons must not be NaN, got {epsilons!r}")
    return grid


def privacy_profile(Q: ArrayLike, epsilons: ArrayLike) -> AnyArray:
    """Return the exact privacy profile δ(ε) of a channel.

    Parameters
    ----------
    Q : array_like, shape (k, m)
        Channel ``Q[x, y] = P(report y | true answer x)``.
    epsilons : array_like
        Values of ε (any shape; ``±inf`` allowed).

    Returns
    -------
    ndarray
        δ(ε) with the shape of ``epsilons``, each in [0, 1]: the smallest δ for
        which the channel is (ε, δ)-LDP.

    Notes
    -----
    ``δ(ε) = max_{x ≠ x'} Σ_y max(0, Q[x, y] − e^ε Q[x', y])`` (the
    hockey-stick divergence).  For each ordered pair the outputs are sorted by
    log-likelihood ratio ``ln(Q[x, y] / Q[x', y])``; the terms that count are
    those with ratio ≥ ε, so each ε costs one binary search.  Time
    ``O(k² m log m)``.  ``δ(ε) = 0`` for ε ≥ ``pure_epsilon(Q)`` and
    ``δ(0)`` is the largest total-variation distance between two rows.

    References
    ----------
    .. [1] C. Dwork and A. Roth (2014), Def. 2.4.
    .. [2] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
       Differential Privacy", ICML 2018 (privacy profiles).
    """
    channel = as_channel(Q)
    grid = as_epsilons(epsilons)
    flat = grid.ravel()
    best = np.zeros(flat.shape)
    k = channel.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_q = np.log(channel)
    for x in range(k):
        others = np.delete(np.arange(k), x)
        if others.size == 0:
            break
        # log ratio ln(P/B) for every x' at once; P = 0 never contributes.
        with np.errstate(invalid="ignore"):  # 0/0 columns give NaN, masked next
            ratio = log_q[x][None, :] - log_q[others]
        ratio = np.where(channel[x][None, :] > 0, ratio, -np.inf)
        order = np.argsort(ratio, axis=1, kind="stable")
        ratio_sorted = np.take_along_axis(ratio, order, axis=1)
        p_sorted = channel[x][order]
        b_sorted = np.take_along_axis(channel[others], order, axis=1)
        # suffix sums: mass of the outputs with ratio >= the cut
        zeros = np.zeros((others.size, 1))
        p_tail = np.hstack([np.cumsum(p_sorted[:, ::-1], axis=1)[:, ::-1], zeros])
        b_tail = np.hstack([np.cumsum(b_sorted[:, ::-1], axis=1)[:, ::-1], zeros])
        for row in range(others.size):
            cut = np.searchsorted(ratio_sorted[row], flat, side="left")
            b_part = b_tail[row, cut]
            # e^ε·B computed as exp(ε + ln B): it is at most P, so never overflows
            with np.errstate(divide="ignore", invalid="ignore"):
                penalty = np.where(b_part > 0, np.exp(flat + np.log(b_part)), 0.0)
            best = np.maximum(best, p_tail[row, cut] - penalty)
    return np.clip(best, 0.0, 1.0).reshape(grid.shape)
