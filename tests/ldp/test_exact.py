"""Exact arithmetic: logarithms, rounding up, display."""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Context, Decimal, localcontext

import pytest

from ldp.exact import (
    PRECISION,
    channel_epsilon,
    display_epsilon,
    display_epsilon_significant,
    keep_other_weights,
    log_ratio,
    round_up_float,
)


def _ln3() -> Decimal:
    """ln 3 rounded up to PRECISION digits (its 61st digit is a 4)."""
    with localcontext() as ctx:
        ctx.prec = PRECISION + 40
        wide = Decimal(3).ln()
    return Context(prec=PRECISION, rounding=ROUND_CEILING).plus(wide)


def _ln_wide(numerator: int, denominator: int) -> Decimal:
    """ln(numerator/denominator) with 200 digits: the truth, for comparison."""
    with localcontext() as ctx:
        ctx.prec = 200
        return (Decimal(numerator) / Decimal(denominator)).ln()


def test_precision_is_at_least_50_digits():
    assert PRECISION >= 50


def test_log_ratio_is_exact_logarithm_of_the_ratio_rounded_up():
    assert log_ratio(6, 2) == _ln3()


def test_log_ratio_never_rounds_below_the_logarithm_where_nearest_would():
    # ln 3 = 1.0986…173469|43…: rounding to nearest at 60 digits lands below.
    with localcontext() as ctx:
        ctx.prec = PRECISION
        nearest = Decimal(3).ln()
    assert nearest < _ln_wide(3, 1)
    assert log_ratio(3, 1) > _ln_wide(3, 1)
    assert log_ratio(3, 1) - nearest == Decimal(1).scaleb(-PRECISION + 1)


def _just_above(target: Decimal, denominator: int) -> int:
    """The least numerator with ln(numerator/denominator) > target."""
    with localcontext() as ctx:
        ctx.prec = 200
        return int(
            (Decimal(denominator) * target.exp()).to_integral_value(
                rounding=ROUND_CEILING
            )
        )


@pytest.mark.parametrize("digits", [2, 3])
def test_displayed_epsilon_is_above_a_logarithm_just_above_a_boundary(digits):
    # ln(p/q) exceeds 0.1 by less than 1e-70: a 60-digit logarithm rounded to
    # nearest is exactly 0.1 and would display "0.10"/"0.100", below the truth.
    q = 10**75
    p = _just_above(Decimal("0.1"), q)
    truth = _ln_wide(p, q)
    assert 0 < truth - Decimal("0.1") < Decimal("1e-70")
    shown = Decimal(display_epsilon(log_ratio(p, q), digits=digits))
    assert shown >= truth
    assert shown == Decimal("0.1") + Decimal(1).scaleb(-digits)


def test_float_epsilon_is_above_a_logarithm_just_above_a_float():
    # ln(p/q) just above the float nearest 0.1 (which is above 0.1 itself).
    q = 10**75
    boundary = Decimal.from_float(0.1)
    p = _just_above(boundary, q)
    truth = _ln_wide(p, q)
    assert boundary < truth
    assert Decimal(round_up_float(log_ratio(p, q))) >= truth


def test_log_ratio_is_tight_and_above_for_ratios_near_one():
    for numerator, denominator in [(2**32, 2**32 - 1), (2**64 + 1, 2**64), (5, 7)]:
        value, truth = (
            log_ratio(numerator, denominator),
            _ln_wide(numerator, denominator),
        )
        assert value >= truth
        assert value - truth <= abs(truth) * Decimal(10) ** (-PRECISION + 1)


def test_log_ratio_of_equal_integers_is_zero():
    assert log_ratio(7, 7) == 0


def test_round_up_float_returns_smallest_float_not_below():
    value = _ln3()
    up = round_up_float(value)
    assert Decimal(up) >= value
    assert Decimal(math.nextafter(up, 0.0)) < value


def test_round_up_float_keeps_exact_floats():
    assert round_up_float(Decimal("0.5")) == 0.5


def test_display_rounds_up_to_three_decimals():
    assert display_epsilon(_ln3()) == "1.099"
    assert display_epsilon(Decimal("1.0001")) == "1.001"
    assert display_epsilon(Decimal(2)) == "2.000"


def test_display_rounds_up_to_two_decimals():
    assert display_epsilon(_ln3(), digits=2) == "1.10"


def test_display_rejects_other_digit_counts():
    with pytest.raises(ValueError, match="digits"):
        display_epsilon(Decimal(1), digits=5)


def test_channel_epsilon_of_coin_design_is_ln3():
    assert channel_epsilon([[3, 1], [1, 3]]) == _ln3()


def test_channel_epsilon_rejects_a_zero_weight():
    with pytest.raises(ValueError, match="zero"):
        channel_epsilon([[1, 0], [0, 1]])


def test_keep_other_weights_never_exceed_requested_ratio():
    keep, other = keep_other_weights(1.0, 10)
    assert keep + 9 * other <= 2**32
    assert log_ratio(keep, other) <= Decimal(1)
    assert log_ratio(keep + 1, other) > Decimal(1)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("1.0986122886681098", "1.10"),
        ("2.0794415416798357", "2.08"),
        ("0.0201", "0.0201"),
        ("0.02000001", "0.0201"),
        ("9.9951", "10.0"),
        ("12.34", "12.4"),
        ("7", "7.00"),
        ("0", "0"),
    ],
)
def test_significant_display_rounds_up_to_three_significant_digits(value, shown):
    assert display_epsilon_significant(Decimal(value)) == shown
    assert Decimal(shown) >= Decimal(value)
