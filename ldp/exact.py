"""Exact arithmetic for integer weights: e^ε, floors, and ε rounded up.

The delivered ε of a mechanism is computed from the very integers the sampler
uses, with 60 significant digits, and only ever rounded *up* for display.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal, localcontext
from fractions import Fraction

PRECISION = 60
"""Significant decimal digits used for every exact computation (at least 50)."""

ROW_SUM_MAX = 2**32
"""Largest allowed row sum of integer weights (one rejection-sampled word)."""

EPSILON_TOLERANCE = Decimal("1e-6")
"""Largest allowed gap ``ε − ε'`` between the requested and the delivered ε,
relative to ``max(1, ε)``: ``0 <= ε − ε' <= 10^-6 · max(1, ε)``.  Six
significant digits of ε survive compilation; a coarse grid at a large ε
(geometric on 1001 levels at ε = 9 falls 3.3e-6 short) keeps six digits."""


def epsilon_gap_allowed(requested: float) -> Decimal:
    """Largest allowed ``ε − ε'`` for a requested ε.

    Parameters
    ----------
    requested : float
        The requested ε.

    Returns
    -------
    Decimal
        ``10^-6 · max(1, ε)``, with ε taken at its exact binary value.

    Notes
    -----
    An absolute 10^-6 below ε = 1 and a relative 10^-6 above.

    References
    ----------
    .. [1] docs/maths.md, section 1.3 (integer weights).
    """
    return EPSILON_TOLERANCE * max(Decimal(1), Decimal(requested))


_GUARD_DIGITS = 20
"""Extra digits carried before the final rounding up of a logarithm."""


class UndeliverableEpsilon(ValueError):
    """The integer weights of a spec cannot deliver the requested ε.

    Raised while compiling when the delivered ``ε'`` would be 0 (every
    answer reported alike), above the request, or further below it than
    :func:`epsilon_gap_allowed`; ``ldp.build`` turns it into a ``ValueError``
    naming the nearest ε above the request that the spec's integer weights
    can express.

    Attributes
    ----------
    above : Decimal or None
        An ``ε'`` the same spec's integer weights deliver, above the request
        (the one calibration met just above it), or None when unknown.
    """

    def __init__(self, message: str, above: Decimal | None = None) -> None:
        super().__init__(message)
        self.above = above


def _context() -> Context:
    return Context(prec=PRECISION)


def exp_decimal(epsilon: float | Decimal) -> Decimal:
    """Return ``e^ε`` to 60 significant digits.

    Parameters
    ----------
    epsilon : float or Decimal
        The exponent; a float is taken at its exact binary value.

    Returns
    -------
    Decimal
        ``exp(epsilon)`` correctly rounded to 60 digits.

    Notes
    -----
    ``Decimal(float)`` is exact, so ``e^ε`` is for the float actually requested.

    References
    ----------
    .. [1] docs/maths.md, section 1 (integer weights).
    """
    with localcontext(_context()):
        return Decimal(epsilon).exp()


def floor_decimal(value: Decimal) -> int:
    """Return ``floor(value)`` as an int.

    Parameters
    ----------
    value : Decimal
        Any finite Decimal.

    Returns
    -------
    int
        The largest integer not above ``value``.

    Notes
    -----
    ``floor(x) = max{n in Z : n <= x}``; used so weights never exceed e^ε ratios.

    References
    ----------
    .. [1] docs/maths.md, section 1 (integer weights).
    """
    return int(value.to_integral_value(rounding=ROUND_FLOOR))


def ceil_decimal(value: Decimal) -> int:
    """Return ``ceil(value)`` as an int.

    Parameters
    ----------
    value : Decimal
        Any finite Decimal.

    Returns
    -------
    int
        The smallest integer not below ``value``.

    Notes
    -----
    ``ceil(x) = min{n in Z : n >= x}``.

    References
    ----------
    .. [1] docs/maths.md, section 1 (integer weights).
    """
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def log_ratio(numerator: int, denominator: int) -> Decimal:
    """Return ``ln(numerator / denominator)`` rounded up to 60 significant digits.

    Parameters
    ----------
    numerator, denominator : int
        Positive integers (products of weights).

    Returns
    -------
    Decimal
        The smallest 60-digit decimal not below the natural logarithm of the
        exact rational ratio.

    Notes
    -----
    ε of a finite channel is ``max_y ln(max_x Q[x,y] / min_x Q[x,y])``; with
    integer weights every ratio is rational, so only the logarithm is rounded,
    and it is rounded *up*: ``Decimal.ln`` rounds to nearest whatever the
    context says, so the ratio is rounded up and its logarithm taken with
    ``w = 80 + (digits of numerator and denominator)`` digits (error at most
    half a unit of the w-th digit, far below the 60th even for a ratio as
    close to 1 as ``1 + 1/denominator``), one unit of the w-th digit is added
    and the sum is rounded toward +∞ to 60 digits.  The result is therefore
    never below the true value, so every later rounding up (to a float, to
    2 or 3 decimals) is an upper bound too.  ``ln 1 = 0`` is exact.

    References
    ----------
    .. [1] docs/maths.md, section 1 (exact ε of a finite channel).
    .. [2] S. L. Warner, "Randomized response", JASA 60(309), 1965.
    """
    if numerator <= 0 or denominator <= 0:
        raise ValueError("log_ratio needs positive integers")
    if numerator == denominator:
        return Decimal(0)
    # Enough digits that the ratio's rounding is far below the logarithm's
    # 60th digit even when the ratio is as close to 1 as 1 + 1/denominator.
    wide = PRECISION + _GUARD_DIGITS + len(str(numerator)) + len(str(denominator))
    with localcontext(Context(prec=wide, rounding=ROUND_CEILING)):
        ratio = Decimal(numerator) / Decimal(denominator)  # >= the exact ratio
    with localcontext(Context(prec=wide)):
        logarithm = ratio.ln()  # to nearest: at most half a unit off
    with localcontext(Context(prec=wide, rounding=ROUND_CEILING)):
        upper = logarithm + Decimal(1).scaleb(logarithm.adjusted() - wide + 1)
    return Context(prec=PRECISION, rounding=ROUND_CEILING).plus(upper)


def channel_epsilon(channel: list[list[int]]) -> Decimal:
    """Return the exact ε of a finite channel given by integer weights.

    Parameters
    ----------
    channel : list of list of int
        ``W[x][y] >= 1`` with equal row sums.

    Returns
    -------
    Decimal
        ``max_y ln(max_x W[x][y] / min_x W[x][y])``.

    Notes
    -----
    With equal row sums ``S``, ``Q[x, y] = W[x][y] / S`` and the sums cancel
    in every ratio.  A zero next to a positive entry would be ε = ∞.

    References
    ----------
    .. [1] docs/maths.md, section 1 (ε-LDP of a channel).
    .. [2] P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local
       differential privacy", NeurIPS 2014 / JMLR 2016.
    """
    best = Fraction(1)
    for column in zip(*channel, strict=True):
        if min(column) <= 0:
            raise ValueError("a channel with a zero weight is not ε-LDP")
        best = max(best, Fraction(max(column), min(column)))
    return log_ratio(best.numerator, best.denominator)


def round_up_float(value: Decimal) -> float:
    """Return the smallest float that is ``>= value``.

    Parameters
    ----------
    value : Decimal
        An exact (60-digit) quantity such as a delivered ε.

    Returns
    -------
    float
        ``min{x in float64 : x >= value}``.

    Notes
    -----
    ``float(value)`` rounds to nearest; if that lands below, step up one ulp.

    References
    ----------
    .. [1] docs/maths.md, section 1 (ε rounded up, never echoed back).
    """
    result = float(value)
    if Decimal(result) < value:
        result = math.nextafter(result, math.inf)
    return result


def display_epsilon(value: Decimal, digits: int = 3) -> str:
    """Return ε as a decimal string rounded UP to ``digits`` places.

    Parameters
    ----------
    value : Decimal
        The exact delivered ε.
    digits : int, optional
        Decimal places, 2 or 3 (default 3).

    Returns
    -------
    str
        For example ``"1.099"`` for ε = ln 3.

    Notes
    -----
    ``ceil(ε · 10^d) / 10^d``, so the displayed value is never below ε.

    References
    ----------
    .. [1] docs/maths.md, section 1 (display rounded up).
    """
    if digits not in (2, 3):
        raise ValueError(f"digits must be 2 or 3, got {digits!r}")
    quantum = Decimal(1).scaleb(-digits)
    return str(value.quantize(quantum, rounding=ROUND_CEILING))


def display_epsilon_significant(value: Decimal, digits: int = 3) -> str:
    """Return ε as a decimal string rounded UP to ``digits`` significant digits.

    Parameters
    ----------
    value : Decimal
        The exact delivered ε (positive).
    digits : int, optional
        Significant digits (default 3).

    Returns
    -------
    str
        For example ``"1.10"`` for ε = ln 3 and ``"2.08"`` for ε = ln 8.

    Notes
    -----
    With ``e = floor(log10 ε) − digits + 1``, the value is
    ``ceil(ε · 10^−e) · 10^e``, so the displayed value is never below ε (a
    carry such as 9.995 → 10.0 keeps ``digits`` digits).  0 is ``"0"``.

    References
    ----------
    .. [1] docs/maths.md, section 1.4 (exact arithmetic, rounded up).

    Examples
    --------
    >>> display_epsilon_significant(log_ratio(8, 1))
    '2.08'
    >>> display_epsilon_significant(Decimal("0.020001"))
    '0.0201'
    """
    if value <= 0:
        return "0"
    exponent = value.adjusted() - digits + 1
    rounded = value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_CEILING)
    if rounded.adjusted() - exponent >= digits:  # 9.995 → 10.00: one digit fewer
        rounded = value.quantize(Decimal(1).scaleb(exponent + 1), ROUND_CEILING)
    return format(rounded, "f")


def keep_other_weights(epsilon: float, outputs: int) -> tuple[int, int]:
    """Integer weights ``(P, Q)`` of a symmetric randomized response.

    Parameters
    ----------
    epsilon : float
        Requested ε.
    outputs : int
        Number of outputs ``m`` (``m = 2`` for Warner, ``k`` for GRR, ``g``
        for OLH).

    Returns
    -------
    P, Q : int
        Keep weight and weight of each other output, with
        ``P + (m − 1) Q <= 2^32`` and ``P/Q <= e^ε``.

    Notes
    -----
    ``Q = floor(2^32/(e^ε + m − 1))`` and ``P = floor(Q e^ε)``, so the
    delivered ``ε' = ln(P/Q) <= ε`` and ``ε − ε' < ln(1 + 1/P) < 1/P``.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4.1 (direct encoding).
    .. [2] docs/maths.md, sections 1 and 3.
    """
    e = exp_decimal(epsilon)
    with localcontext(_context()):
        other = floor_decimal(Decimal(ROW_SUM_MAX) / (e + outputs - 1))
        keep = floor_decimal(other * e)
    if other < 1:
        raise ValueError(
            f"epsilon={epsilon!r} with {outputs} outputs would need a weight of 0"
        )
    return keep, other


def ceil_ratio(numerator: int, base: Decimal, offset: int) -> int:
    """Return ``ceil(numerator / (base + offset))`` at 60 digits.

    Parameters
    ----------
    numerator : int
        For example the row sum ``2^32``.
    base : Decimal
        For example ``e^ε``.
    offset : int
        Added to ``base`` before dividing.

    Returns
    -------
    int
        The ceiling of the quotient.

    Notes
    -----
    Used for the "zero" weight of unary encodings: ``A0 = ceil(S/(e^ε + 1))``
    makes ``(S − A0)/A0 <= e^ε``.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4.3.
    """
    with localcontext(_context()):
        return ceil_decimal(Decimal(numerator) / (base + offset))
