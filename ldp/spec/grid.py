"""Validation of numeric grids (spec format version 1)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

GRID_LEVELS_MIN = 2
GRID_LEVELS_MAX = 1001
GRID_VALUE_MAX = Decimal(10) ** 15
GRID_FIELDS = frozenset(
    {"version", "mechanism", "weights", "low", "high", "step", "epsilon"}
)


def _decimal(field: str, value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(
            f"spec field {field!r} is {value!r}; allowed: a decimal string such "
            "as '2.5' or a number"
        )
    try:
        number = Decimal(value if isinstance(value, str) else str(value))
    except InvalidOperation:
        raise ValueError(
            f"spec field {field!r} is {value!r}; allowed: a decimal string such "
            "as '2.5' or a number"
        ) from None
    if not number.is_finite() or abs(number) > GRID_VALUE_MAX:
        raise ValueError(
            f"spec field {field!r} is {value!r}; allowed: a finite decimal with "
            f"absolute value <= {GRID_VALUE_MAX:.0e}"
        )
    return number


def validate_grid(spec: Any) -> dict[str, Any]:
    """Check ``low``, ``high``, ``step`` of a numeric spec.

    Parameters
    ----------
    spec : mapping
        A requested or compiled numeric spec.

    Returns
    -------
    dict
        ``{"low", "high", "step"}`` as plain decimal strings (no exponent).

    Raises
    ------
    ValueError
        Naming the field, the bad value and what is allowed.

    Notes
    -----
    ``m = (high − low)/step + 1`` must be an integer with
    ``2 <= m <= 1001`` (exact rational arithmetic); ``step > 0``.  Numbers
    are read through their shortest repr, so ``0.1`` means ``"0.1"``.

    References
    ----------
    .. [1] ldp/spec/README.md, "Ordinal, numeric and multi-select mechanisms".
    """
    fields = {}
    for name in ("low", "high", "step"):
        if name not in spec:
            raise ValueError(
                f"spec field {name!r} is missing; required for {spec['mechanism']}"
            )
        fields[name] = _decimal(name, spec[name])
    low, high, step = fields["low"], fields["high"], fields["step"]
    if step <= 0:
        raise ValueError(f"spec field 'step' is {spec['step']!r}; allowed: step > 0")
    if high <= low:
        raise ValueError(
            f"spec field 'high' is {spec['high']!r}; allowed: high > low "
            f"(low is {spec['low']!r})"
        )
    levels = (Fraction(high) - Fraction(low)) / Fraction(step) + 1
    if levels.denominator != 1 or not GRID_LEVELS_MIN <= levels <= GRID_LEVELS_MAX:
        raise ValueError(
            f"spec field 'step' is {spec['step']!r}: (high − low)/step + 1 = "
            f"{float(levels):g} levels; allowed: a whole number of levels from "
            f"{GRID_LEVELS_MIN} to {GRID_LEVELS_MAX}"
        )
    # Plain positional notation ("10", never "1E+1"): the browser reads only that.
    return {name: format(value, "f") for name, value in fields.items()}
