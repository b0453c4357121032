"""Exact arithmetic: logarithms, rounding up, display."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import pytest

from ldp.exact import (
    PRECISION,
    channel_epsilon,
    display_epsilon,
    keep_other_weights,
    log_ratio,
    round_up_float,
)


def _ln3() -> Decimal:
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return Decimal(3).ln()


def test_precision_is_at_least_50_digits():
    assert PRECISION >= 50


def test_log_ratio_is_exact_logarithm_of_the_ratio():
    assert log_ratio(6, 2) == _ln3()


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
