"""An ε too small for the integer weights is refused, never compiled to ε' = 0.

Each spec below compiled, before the fix, to weights whose two probabilities
were equal (keep == flip, ε' = 0) and estimated ``[inf, -inf]`` or a point
interval; now ``build`` refuses it and names the smallest ε the spec compiles.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest

import ldp
from ldp.exact import epsilon_gap_allowed
from ldp.mechanisms import REGISTRY
from ldp.mechanisms.smallest import smallest_epsilon
from ldp.spec.validation import validate_spec

GRID = {"low": "0", "high": "10", "step": "1"}

REPORTED = [
    {"mechanism": "warner", "epsilon": 1e-10},
    {"mechanism": "grr", "k": 4096, "epsilon": 1e-7},
    {"mechanism": "oue", "k": 4, "epsilon": 1e-10},
    {"mechanism": "multi_rr", "k": 64, "epsilon": 1e-8},
    {"mechanism": "padding_sampling", "k": 4096, "ell": 1, "epsilon": 1e-7},
    {"mechanism": "piecewise", **GRID, "epsilon": 1e-9},
]

EVERY_FAMILY = [
    *REPORTED,
    {"mechanism": "sue", "k": 4, "epsilon": 1e-10},
    {"mechanism": "olh", "k": 4, "epsilon": 1e-10},
    {"mechanism": "hadamard", "k": 4, "epsilon": 1e-10},
    {"mechanism": "padding_sampling", "k": 8, "ell": 2, "epsilon": 1e-12},
    {"mechanism": "ordinal", "k": 5, "epsilon": 1e-9},
    {"mechanism": "geometric", **GRID, "epsilon": 1e-9},
    {"mechanism": "duchi", **GRID, "epsilon": 1e-9},
]


def _named_minimum(error: pytest.ExceptionInfo[ValueError]) -> float:
    found = re.search(r"epsilon >= ([0-9.e+-]+)", str(error.value))
    assert found, str(error.value)
    return float(found.group(1))


@pytest.mark.parametrize("spec", REPORTED, ids=lambda s: s["mechanism"])
def test_reported_tiny_epsilon_is_refused_with_a_clear_error(spec):
    with pytest.raises(ValueError, match=r"spec field 'epsilon' is .* too small"):
        ldp.build(spec)


@pytest.mark.parametrize("spec", EVERY_FAMILY, ids=lambda s: s["mechanism"])
def test_refusal_names_the_smallest_epsilon_the_spec_compiles(spec):
    with pytest.raises(ValueError, match="smallest ε its integer weights") as error:
        ldp.build(spec)
    smallest = _named_minimum(error)
    mechanism = ldp.build({**spec, "epsilon": smallest})
    assert 0 < mechanism.epsilon_exact <= Decimal(smallest)
    below = math.nextafter(smallest, 0.0)
    with pytest.raises(ValueError, match="too small"):
        ldp.build({**spec, "epsilon": below})


def test_warner_minimum_is_one_step_of_the_largest_weights():
    # keep + flip <= 2^32 and keep > flip: the closest ratio is 2^31/(2^31 − 1).
    params, _ = validate_spec({"mechanism": "warner", "epsilon": 1e-10})
    smallest, delivered = smallest_epsilon(REGISTRY["warner"], params)
    assert ldp.build({"mechanism": "warner", "epsilon": smallest}).weights == {
        "keep": 2**31,
        "flip": 2**31 - 1,
    }
    assert delivered == ldp.exact.log_ratio(2**31, 2**31 - 1)
    assert smallest == ldp.exact.round_up_float(delivered)


def test_piecewise_at_tiny_epsilon_compiled_to_a_channel_without_information():
    # The root cause of the mean 5.0 in [5, 5]: high == low, every row alike.
    with pytest.raises(ValueError, match="deliver ε' = 0") as error:
        ldp.build({"mechanism": "piecewise", **GRID, "epsilon": 1e-9})
    assert re.search(r"'high': (\d+), 'low': \1\b", str(error.value))


def test_a_delivered_epsilon_just_within_the_tolerance_compiles():
    mechanism = ldp.build(
        {
            "mechanism": "geometric",
            "low": "0",
            "high": "1000",
            "step": "1",
            "epsilon": 9.0,
        }
    )
    gap = Decimal(9) - mechanism.epsilon_exact
    assert Decimal("1e-6") < gap <= epsilon_gap_allowed(9.0)


def test_compiled_spec_of_a_refused_epsilon_is_refused_too():
    spec = {
        "mechanism": "warner",
        "epsilon": 1e-10,
        "weights": {"keep": 2147483647, "flip": 2147483647},
    }
    with pytest.raises(ValueError, match="too small"):
        ldp.build(spec)


def test_the_minimum_is_remembered_per_spec_whatever_the_refused_epsilon():
    from ldp.mechanisms import smallest

    first, _ = validate_spec({"mechanism": "grr", "k": 7, "epsilon": 1e-9})
    second, _ = validate_spec({"mechanism": "grr", "k": 7, "epsilon": 1e-11})
    answer = smallest_epsilon(REGISTRY["grr"], first)
    cached = len(smallest._CACHE)
    assert smallest_epsilon(REGISTRY["grr"], second) == answer
    assert len(smallest._CACHE) == cached
