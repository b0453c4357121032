"""Template filters for privacy figures on researchers' pages."""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal

from django import template

register = template.Library()

SIGNIFICANT = 3


def epsilon_text(value: float | Decimal | None, digits: int = SIGNIFICANT) -> str:
    """ε to ``digits`` significant digits, rounded **up** (never understated).

    A page never shows a privacy loss smaller than the true one: 0.0201 is
    "0.0201", 1.0986 is "1.10", 12.34 is "12.4"; the exact value stays in
    the exports.  Infinity is "∞"; None is "—".
    """
    if value is None:
        return "—"
    number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if number.is_nan():
        return "—"
    if number.is_infinite():
        return "∞"
    if number == 0:
        return "0"
    exponent = math.floor(math.log10(abs(float(number)))) - digits + 1
    quantum = Decimal(1).scaleb(exponent)
    rounded = number.quantize(quantum, rounding=ROUND_CEILING)
    if rounded.adjusted() - exponent >= digits:  # 9.995 → 10.0: one digit fewer
        rounded = number.quantize(Decimal(1).scaleb(exponent + 1), ROUND_CEILING)
    return format(rounded, "f")


@register.filter(name="epsilon")
def epsilon_filter(value: float | Decimal | None) -> str:
    """``{{ value|epsilon }}``: :func:`epsilon_text`."""
    return epsilon_text(value)
