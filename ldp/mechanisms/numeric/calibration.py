"""Integer weights for finite channels: rounding, exact ε, calibration."""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ldp.arrays import AnyArray, FloatArray, IntArray
from ldp.exact import UndeliverableEpsilon, log_ratio

CALIBRATION_STEPS = 80
"""Bisection steps used to calibrate a kernel parameter to the requested ε."""


def cumulative_index(weights: list[int], v: int) -> int:
    """Return the least ``i`` with ``weights[0] + … + weights[i] > v``.

    Parameters
    ----------
    weights : list of int
        Non-negative integer weights summing to more than ``v``.
    v : int
        A uniform draw in ``[0, sum(weights))``.

    Returns
    -------
    int
        The sampled index.

    Notes
    -----
    ``P(i) = weights[i]/S`` when ``v`` is uniform on ``[0, S)``; a plain scan,
    word for word the contract's ``cumulative``.

    References
    ----------
    .. [1] docs/maths.md, section 9; ldp/spec/README.md.
    """
    total = 0
    for i, weight in enumerate(weights):
        total += weight
        if total > v:
            return i
    raise ValueError(f"draw {v} is not below the weight total {total}")


def round_rows(real: FloatArray, total: int) -> IntArray:
    """Round positive real rows to integers ``>= 1`` each summing to ``total``.

    Parameters
    ----------
    real : ndarray, shape (r, c)
        Positive reals, proportional to the wanted probabilities.
    total : int
        Row sum ``S`` of the integers (``<= 2^32``).

    Returns
    -------
    ndarray of int64
        ``floor(S p)`` raised to at least 1, with the remainder given to the
        largest fractional parts (largest-remainder rounding).

    Notes
    -----
    The rounding is only a proposal: the delivered ε is always recomputed
    exactly from the integers returned.

    References
    ----------
    .. [1] docs/maths.md, section 1 (integer weights).
    """
    real = np.atleast_2d(np.asarray(real, dtype=float))
    scaled = real / real.sum(axis=1, keepdims=True) * total
    base: IntArray = np.maximum(np.floor(scaled).astype(np.int64), 1)
    rest = total - base.sum(axis=1)
    frac = scaled - np.floor(scaled)
    order = np.argsort(-frac, axis=1, kind="stable")
    for row in range(base.shape[0]):
        r = int(rest[row])
        if r > 0:
            base[row, order[row, :r]] += 1
        while r < 0:  # weights raised to 1 overshot: take from the largest
            j = int(np.argmax(base[row]))
            take = min(-r, int(base[row, j]) - 1)
            base[row, j] -= take
            r += take
    return base


Extremes = tuple[IntArray, IntArray]
"""``(max_x W[x, y], min_x W[x, y])`` for every output ``y``: all ε needs."""


def column_extremes(weights: AnyArray) -> Extremes:
    """Column maxima and minima of an integer channel.

    Parameters
    ----------
    weights : ndarray of int, shape (inputs, outputs)
        ``W[x, y]``.

    Returns
    -------
    (ndarray, ndarray)
        ``max_x W[x, y]`` and ``min_x W[x, y]``.

    Notes
    -----
    ε depends on the channel only through these (docs/maths.md, section 1).

    References
    ----------
    .. [1] docs/maths.md, section 1.
    """
    w = np.asarray(weights, dtype=np.int64)
    return w.max(axis=0), w.min(axis=0)


def extremes_epsilon(extremes: Extremes) -> Decimal:
    """Exact ``max_y ln(max_x W[x, y]/min_x W[x, y])`` from column extremes.

    Parameters
    ----------
    extremes : (ndarray, ndarray)
        Column maxima and minima (:func:`column_extremes`).

    Returns
    -------
    Decimal
        The exact ε to 60 digits.

    Raises
    ------
    ValueError
        For a zero weight (not ε-LDP).

    Notes
    -----
    The largest ratio is found with exact fractions among the columns whose
    float ratio is near the largest.

    References
    ----------
    .. [1] docs/maths.md, section 1 (exact ε of a finite channel).
    """
    high, low = extremes
    if low.min() < 1:
        raise ValueError("a channel with a zero weight is not ε-LDP")
    ratio = high / low
    near = np.nonzero(ratio >= ratio.max() * (1 - 1e-9))[0]
    best = max(Fraction(int(high[j]), int(low[j])) for j in near)
    return log_ratio(best.numerator, best.denominator)


def extremes_float_epsilon(extremes: Extremes) -> float:
    """Float ε from column extremes (for calibration only)."""
    high, low = extremes
    return float(np.max(np.log(high.astype(float)) - np.log(low.astype(float))))


def exact_channel_epsilon(weights: AnyArray) -> Decimal:
    """Exact ε of an integer channel with equal row sums.

    Parameters
    ----------
    weights : ndarray of int, shape (inputs, outputs)
        ``W[x, y] >= 1``, every row summing to the same ``S``.

    Returns
    -------
    Decimal
        ``max_y ln(max_x W[x, y]/min_x W[x, y])`` to 60 digits.

    Notes
    -----
    :func:`extremes_epsilon` of the :func:`column_extremes`.

    References
    ----------
    .. [1] docs/maths.md, section 1 (exact ε of a finite channel).
    """
    return extremes_epsilon(column_extremes(weights))


def float_epsilon(weights: AnyArray) -> float:
    """Float ε of an integer channel (for calibration only)."""
    return extremes_float_epsilon(column_extremes(weights))


class Calibration(NamedTuple):
    """What :func:`calibrate` found.

    Attributes
    ----------
    parameter : float
        The smallest feasible parameter found.
    weights : ndarray of int64
        The weights there, whose exact ε is at most the request.
    above : Decimal or None
        The exact ε of the last parameter refused (just less noise), the
        nearest delivered ε above the request the bisection met; None when
        nothing was refused.
    """

    parameter: float
    weights: AnyArray
    above: Decimal | None


def calibrate(
    weights_at: Callable[[float], AnyArray],
    epsilon: float,
    low: float,
    high: float,
    extremes: Callable[[AnyArray], Extremes] = column_extremes,
) -> Calibration:
    """Bisect a privacy parameter so the integer channel's ε meets ``epsilon``.

    Parameters
    ----------
    weights_at : callable
        ``t -> W`` integer channel weights (or anything ``extremes`` reads);
        ε decreases as ``t`` grows.
    epsilon : float
        Requested ε.
    low, high : float
        Bracket: ``W(high)`` must have ε ``<= epsilon``.
    extremes : callable, optional
        ``W -> (column maxima, column minima)``; by default
        :func:`column_extremes` (a kernel family passes a faster exact
        equivalent).

    Returns
    -------
    Calibration
        The parameter ``t``, ``W(t)`` (exact ε ``<= epsilon``) and the exact ε
        of the last refused parameter (``above``).

    Raises
    ------
    UndeliverableEpsilon
        A ``ValueError``: no feasible parameter exists in the bracket; its
        ``above`` is the exact ε at the bracket's noisiest end.

    Notes
    -----
    Feasibility is judged on the integers themselves (exact Decimal check at
    the end), not on the real-valued kernel, so rounding is accounted for.
    The bisection ends on neighbouring parameters ``t⁻ < t``, ``t`` feasible
    and ``t⁻`` refused, so ``above = ε'(W(t⁻))`` is the delivered ε met just
    above the request: a refused request learns from it the nearest one the
    weights can express (:mod:`ldp.mechanisms.smallest`).

    References
    ----------
    .. [1] docs/maths.md, section 4 (calibrate by bisection).
    """
    target = Decimal(epsilon)
    best = weights_at(high)
    noisiest = extremes_epsilon(extremes(best))
    if noisiest > target:
        raise UndeliverableEpsilon(
            f"epsilon={epsilon!r} cannot be met by integer weights", above=noisiest
        )
    above: Decimal | None = None
    for _ in range(CALIBRATION_STEPS):
        mid = (low + high) / 2
        if not low < mid < high:
            break
        candidate = weights_at(mid)
        ends = extremes(candidate)
        exact = extremes_epsilon(ends)
        if extremes_float_epsilon(ends) <= epsilon and exact <= target:
            high, best = mid, candidate
        else:
            low, above = mid, exact
    return Calibration(high, best, above)


CACHE_SIZE = 256
"""Calibrations remembered per process (building is then instant)."""

_CACHE: dict[tuple[Any, ...], Any] = {}


def cached(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """Return a deep copy of ``compute()``, remembered under ``key``.

    Parameters
    ----------
    key : tuple
        Everything the result depends on (mechanism, size, ε).
    compute : callable
        Deterministic calibration.

    Returns
    -------
    object
        A fresh copy, so callers may mutate it.

    Notes
    -----
    Calibration by bisection is deterministic, so caching changes nothing but
    the time to rebuild a compiled spec (for example on every submission).

    References
    ----------
    .. [1] docs/maths.md, section 1.
    """
    if key not in _CACHE:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = compute()
    return copy.deepcopy(_CACHE[key])
