"""Integer weights for finite channels: rounding, exact ε, calibration."""

from __future__ import annotations

import copy
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

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
    Column maxima and minima are integers; the largest ratio is found with
    exact fractions among the columns whose float ratio is near the largest.

    References
    ----------
    .. [1] docs/maths.md, section 1 (exact ε of a finite channel).
    """
    w = np.asarray(weights, dtype=np.int64)
    if w.min() < 1:
        raise ValueError("a channel with a zero weight is not ε-LDP")
    high, low = w.max(axis=0), w.min(axis=0)
    ratio = high / low
    near = np.nonzero(ratio >= ratio.max() * (1 - 1e-9))[0]
    best = max(Fraction(int(high[j]), int(low[j])) for j in near)
    return log_ratio(best.numerator, best.denominator)


def float_epsilon(weights: AnyArray) -> float:
    """Float ε of an integer channel (for calibration only)."""
    w = np.asarray(weights, dtype=float)
    return float(np.max(np.log(w.max(axis=0)) - np.log(w.min(axis=0))))


def calibrate(
    weights_at: Callable[[float], AnyArray],
    epsilon: float,
    low: float,
    high: float,
) -> tuple[float, AnyArray]:
    """Bisect a privacy parameter so the integer channel's ε meets ``epsilon``.

    Parameters
    ----------
    weights_at : callable
        ``t -> W`` integer channel weights; ε decreases as ``t`` grows.
    epsilon : float
        Requested ε.
    low, high : float
        Bracket: ``W(high)`` must have ε ``<= epsilon``.

    Returns
    -------
    t : float
        The smallest feasible parameter found.
    weights : ndarray of int64
        ``W(t)``, whose exact ε is ``<= epsilon``.

    Raises
    ------
    UndeliverableEpsilon
        A ``ValueError``: no feasible parameter exists in the bracket.

    Notes
    -----
    Feasibility is judged on the integers themselves (exact Decimal check at
    the end), not on the real-valued kernel, so rounding is accounted for.

    References
    ----------
    .. [1] docs/maths.md, section 4 (calibrate by bisection).
    """
    target = Decimal(epsilon)
    best = weights_at(high)
    if exact_channel_epsilon(best) > target:
        raise UndeliverableEpsilon(
            f"epsilon={epsilon!r} cannot be met by integer weights"
        )
    for _ in range(CALIBRATION_STEPS):
        mid = (low + high) / 2
        if not low < mid < high:
            break
        candidate = weights_at(mid)
        if float_epsilon(candidate) <= epsilon and (
            exact_channel_epsilon(candidate) <= target
        ):
            high, best = mid, candidate
        else:
            low = mid
    return high, best


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
