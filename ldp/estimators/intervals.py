"""Confidence intervals: the interval object and the one quantile helper.

Every two-sided normal or Student t critical value in ``ldp`` comes from
:func:`critical_value`, so the level checks and the error messages are the
same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar, cast

import numpy as np
from scipy import stats

from ldp.arrays import FloatArray

QUANTILE_METHODS = ("normal", "t")

Bound = TypeVar("Bound", float, FloatArray)


@dataclass(frozen=True, eq=False)
class ConfidenceInterval(Generic[Bound]):
    """Lower and upper confidence bounds: floats, or arrays of one per answer.

    Attributes
    ----------
    low, high : float or ndarray
        The bounds; for shares, arrays of the same length as the estimate.

    Examples
    --------
    >>> interval = ConfidenceInterval(low=0.2, high=0.4)
    >>> interval.high - interval.low
    0.2
    """

    low: Bound
    high: Bound


def check_level(level: float) -> None:
    """Raise ValueError unless ``0 < level < 1``.

    Parameters
    ----------
    level : float
        A confidence level ``1 − α``.

    Raises
    ------
    ValueError
        Naming the value and what is allowed.

    See Also
    --------
    critical_value : Uses it.

    Examples
    --------
    >>> check_level(0.95)
    >>> check_level(1.0)
    Traceback (most recent call last):
    ...
    ValueError: level is 1.0; allowed: 0 < level < 1
    """
    if not 0 < level < 1:
        raise ValueError(f"level is {level!r}; allowed: 0 < level < 1")


def check_method(method: str, allowed: tuple[str, ...]) -> str:
    """Return ``method`` if it is one of ``allowed``, else raise ValueError.

    Parameters
    ----------
    method : str
        The requested method.
    allowed : tuple of str
        The methods on offer.

    Returns
    -------
    str
        ``method`` itself.

    Raises
    ------
    ValueError
        Naming the value and the allowed methods.

    See Also
    --------
    critical_value : Checks its ``method`` with it.

    Examples
    --------
    >>> check_method("t", ("t", "normal"))
    't'
    """
    if method not in allowed:
        raise ValueError(f"method is {method!r}; allowed: {list(allowed)}")
    return method


def critical_value(
    level: float, method: str = "normal", df: int | None = None, tests: int = 1
) -> float:
    """Two-sided critical value ``q`` with ``P(|T| <= q) = 1 − α/tests``.

    Parameters
    ----------
    level : float
        Confidence level ``1 − α`` in (0, 1).
    method : {"normal", "t"}, optional
        Standard normal ``T``, or Student t with ``df`` degrees of freedom.
    df : int, optional
        Degrees of freedom; required for ``method="t"``.
    tests : int, optional
        Bonferroni: the number of intervals that must hold jointly; each
        gets ``α/tests``.

    Returns
    -------
    float
        ``z_{1−α'/2}`` or ``t_{df, 1−α'/2}`` with ``α' = α/tests``.

    Raises
    ------
    ValueError
        For a level outside (0, 1), an unknown method, or ``t`` without
        ``df``.

    Notes
    -----
    ``α = 1 − level`` and ``q = F⁻¹(1 − α'/2)`` for the normal or t
    distribution function ``F``.

    References
    ----------
    .. [1] C. E. Bonferroni, "Teoria statistica delle classi e calcolo delle
       probabilità", 1936.
    .. [2] docs/maths.md, section 6.

    Examples
    --------
    >>> round(critical_value(0.95), 4)
    1.96
    >>> round(critical_value(0.95, "t", df=9), 4)
    2.2622
    >>> round(critical_value(0.95, tests=5), 4)
    2.5758
    """
    check_level(level)
    check_method(method, QUANTILE_METHODS)
    alpha = 1 - level
    if tests > 1:
        alpha /= tests
    if method == "t":
        if df is None:
            raise ValueError("method 't' needs the degrees of freedom df")
        return float(stats.t.ppf(1 - alpha / 2, df))
    return float(stats.norm.ppf(1 - alpha / 2))


KEPT_INSIDE = 0.1
"""Share of the half-width an interval keeps inside the range at the least."""


def bounded_interval(
    center: Bound, half: Bound, low: float | Bound, high: float | Bound
) -> ConfidenceInterval[Bound]:
    """``c̃ ± h`` intersected with ``[low, high]``, ``c̃`` moved towards the range.

    Parameters
    ----------
    center : float or ndarray
        The estimate ``c`` (unbiased; may lie outside the range).
    half : float or ndarray
        Half-width ``h > 0``.
    low, high : float or ndarray
        The range every possible value of the estimand lies in.

    Returns
    -------
    ConfidenceInterval
        ``[max(low, c̃ − h), min(high, c̃ + h)]`` with ``c̃`` the estimate
        clipped to ``[low − (1 − κ) h, high + (1 − κ) h]``,
        ``κ =`` :data:`KEPT_INSIDE`.

    Notes
    -----
    Clipping is the projection onto an interval that contains every possible
    value ``θ``, so ``|c̃ − θ| <= |c − θ|``: whenever ``c ± h`` covers ``θ``,
    so does ``c̃ ± h``, and the result still covers.  An estimate far beyond
    the range (a share of −154 % from a few reports) no longer empties the
    interval or shrinks it to a point at the range's end: at least ``κ h``
    (or the whole range, if narrower) stays inside.  The centre moves only
    when the interval would keep less than that, so the coverage of a truth
    more than ``κ h`` inside the range is the unclipped interval's.

    References
    ----------
    .. [1] docs/maths.md, section 6.8.

    Examples
    --------
    >>> interval = bounded_interval(10.03, 0.5, 0.0, 10.0)
    >>> interval.low, interval.high
    (9.53, 10.0)
    >>> interval = bounded_interval(-1.54, 0.2, 0.0, 1.0)
    >>> round(interval.low, 3), round(interval.high, 3)
    (0.0, 0.02)
    """
    reach = (1 - KEPT_INSIDE) * np.asarray(half)
    centre = np.minimum(np.maximum(center, low - reach), high + reach)
    bottom = np.maximum(centre - half, low)
    top = np.minimum(centre + half, high)
    if np.ndim(bottom) == 0:
        return cast(
            ConfidenceInterval[Bound], ConfidenceInterval(float(bottom), float(top))
        )
    return cast(ConfidenceInterval[Bound], ConfidenceInterval(bottom, top))
