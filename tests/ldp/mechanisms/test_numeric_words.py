"""Numeric grids: hand-computed reports from injected words, grid levels."""

from __future__ import annotations

from decimal import Decimal

import pytest

import ldp
from ldp.sampling import injected_words
from tests.ldp.mechanisms.numeric_specs import grid


def _one(mechanism, x: int, *words: int) -> int:
    return mechanism.randomize_one(x, injected_words(list(words)))


@pytest.mark.parametrize("name", ["geometric", "gaussian"])
def test_kernel_offsets_and_clamping_hand_computed(name):
    mechanism = ldp.build(grid(name, "0", "4", "1", 2.0))  # m = 5
    kernel = mechanism.weights["kernel"]
    assert len(kernel) == 9 and sum(kernel) == mechanism.weights["total"] == 2**32
    edges = [sum(kernel[: j + 1]) for j in range(9)]
    # v in [edges[j−1], edges[j]) gives offset d = j − 4.
    assert _one(mechanism, 2, 0) == 0  # d = −4, clamped to 0
    assert _one(mechanism, 2, edges[3] - 1) == 1  # j = 3: d = −1
    assert _one(mechanism, 2, edges[3]) == 2  # j = 4: d = 0
    assert _one(mechanism, 2, edges[4]) == 3  # j = 5: d = +1
    assert _one(mechanism, 2, 2**32 - 1) == 4  # d = +4, clamped to 4
    assert _one(mechanism, 0, edges[4] - 1) == 0  # d = 0
    assert _one(mechanism, 4, edges[4]) == 4  # d = +1, clamped
    assert _one(mechanism, 4, edges[0]) == 1  # j = 1: d = −3


def test_duchi_threshold_and_rejection_hand_computed():
    mechanism = ldp.build(grid("duchi", "0", "10", "1", 1.0))  # m = 11
    w = mechanism.weights
    total = w["total"]
    assert total == 2 * w["base"] + 10 * w["slope"] < 2**32
    for x in (0, 3, 10):
        cut = w["base"] + x * w["slope"]
        assert _one(mechanism, x, cut - 1) == 1
        assert _one(mechanism, x, cut) == 0
    # Words at or above 2^32 − (2^32 mod S) are rejected; the next one counts.
    limit = 2**32 - 2**32 % total
    assert limit == total  # S > 2^31: one copy of [0, S), the rest rejected
    assert _one(mechanism, 0, limit, 0) == 1
    assert _one(mechanism, 0, 2**32 - 1, total - 1) == 0
    assert _one(mechanism, 10, total, total, w["base"] + 10 * w["slope"] - 1) == 1


def test_piecewise_band_and_outside_hand_computed():
    mechanism = ldp.build(grid("piecewise", "0", "10", "1", 2.0))
    w = mechanism.weights
    cells, width, high, low = w["outputs"], w["width"], w["high"], w["low"]
    band = width * high
    total = band + (cells - width) * low
    limit = 2**32 - 2**32 % total
    assert limit > 0
    x = 4
    start = w["starts"][x]
    assert _one(mechanism, x, 0) == start
    assert _one(mechanism, x, high - 1) == start
    assert _one(mechanism, x, high) == start + 1
    assert _one(mechanism, x, band - 1) == start + width - 1
    assert _one(mechanism, x, band) == 0  # i = 0 < start
    assert _one(mechanism, x, band + start * low - 1) == start - 1
    assert _one(mechanism, x, band + start * low) == start + width  # skips band
    assert _one(mechanism, x, total - 1) == cells - 1
    assert _one(mechanism, 0, band) == width  # start 0: everything shifts


def test_level_maps_grid_values_to_indices():
    mechanism = ldp.build(grid("duchi", "-1", "1", "0.25", 1.0))
    assert mechanism.m == 9
    assert mechanism.level("-1") == 0
    assert mechanism.level(0.25) == 5
    assert mechanism.level(Decimal("1.00")) == 8
    assert mechanism.input_values()[5] == pytest.approx(0.25)
    for bad in ("0.3", 2, "x", True, float("nan"), None):
        with pytest.raises(ValueError):
            mechanism.level(bad)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"low": "abc"}, "'low'"),
        ({"low": True}, "'low'"),
        ({"low": None}, "'low'"),
        ({"low": "NaN"}, "'low'"),
        ({"high": "Infinity"}, "'high'"),
        ({"high": "0"}, "'high'"),
        ({"step": "0"}, "'step'"),
        ({"step": "-5"}, "'step'"),
        ({"step": "3"}, "'step'"),  # 100/3 is not a whole number of levels
        ({"step": "0.0999"}, "'step'"),
        ({"high": "1001", "step": "1"}, "'step'"),  # 1002 levels
        ({"epsilon": 0}, "'epsilon'"),
        ({"epsilon": "1"}, "'epsilon'"),
        ({"k": 5}, "'k'"),
        ({"version": 2}, "'version'"),
    ],
)
@pytest.mark.parametrize("name", ["geometric", "gaussian", "duchi", "piecewise"])
def test_invalid_grids_name_the_field(name, change, field):
    spec = {**grid(name, "0", "100", "5", 1.0), **change}
    with pytest.raises(ValueError, match=field):
        ldp.build(spec)


@pytest.mark.parametrize("missing", ["low", "high", "step", "epsilon"])
def test_missing_grid_fields_are_named(missing):
    spec = grid("geometric", "0", "100", "5", 1.0)
    del spec[missing]
    with pytest.raises(ValueError, match=f"'{missing}'"):
        ldp.build(spec)


def test_numbers_are_read_as_their_decimal_strings():
    from_numbers = ldp.build(grid("duchi", 0, 1, 0.1, 1.0))
    from_strings = ldp.build(grid("duchi", "0", "1", "0.1", 1.0))
    assert from_numbers.spec == from_strings.spec
    assert from_numbers.spec["step"] == "0.1" and from_numbers.k == 11
    largest = ldp.build(grid("piecewise", "0", "1000", "1", 1.0))
    assert largest.m == 1001
