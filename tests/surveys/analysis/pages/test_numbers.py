"""Shares as the researcher's pages show them: never outside 0–100%, never a point."""

from __future__ import annotations

import math

import pytest
from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from surveys.analysis.pages.numbers import share_cut, share_interval


@pytest.mark.parametrize(
    ("low", "high", "shown"),
    [
        (0.12345, 0.5, ("12.3%", "50.0%")),  # rounded outwards
        (-0.2, 0.00004, ("0.0%", "0.1%")),  # cut at 0, then one unit wide
        (0.0, 0.0, ("0.0%", "0.1%")),
        (1.0, 1.0, ("99.9%", "100.0%")),
        (0.95, 1.3, ("95.0%", "100.0%")),
        (0.07, None, ("7.0%", "—")),
    ],
)
def test_an_interval_is_cut_to_the_range_and_rounded_outwards(low, high, shown):
    with translation.override("en"):
        assert share_interval(low, high) == shown


def _value(text: str) -> float:
    return float(text.rstrip("%"))


@given(
    st.floats(-2, 3, allow_nan=False),
    st.floats(0, 1, allow_nan=False),
    st.integers(0, 2),
)
def test_no_interval_shown_leaves_the_range_or_is_a_point(centre, half, digits):
    with translation.override("en"):
        low, high = share_interval(centre - half, centre + half, digits)
    assert 0 <= _value(low) < _value(high) <= 100
    assert math.isclose(_value(high) - _value(low), 0) is False


@pytest.mark.parametrize(
    ("value", "shown"),
    [(-0.05, ("0.0%", True)), (0.3, ("30.0%", False)), (1.2, ("100.0%", True))],
)
def test_a_share_beyond_the_range_is_shown_at_its_end_and_marked(value, shown):
    with translation.override("en"):
        assert share_cut(value) == shown
