"""An ε too small for the integer weights is refused, never compiled to ε' = 0.

Each spec below compiled, before the fix, to weights whose two probabilities
were equal (keep == flip, ε' = 0) and estimated ``[inf, -inf]`` or a point
interval; now ``build`` refuses it and names an ε above it that the spec
compiles (the least one where feasibility is monotone in ε).
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
    found = re.search(r"such as epsilon = ([0-9.e+-]+)", str(error.value))
    assert found, str(error.value)
    return float(found.group(1))


@pytest.mark.parametrize("spec", REPORTED, ids=lambda s: s["mechanism"])
def test_reported_tiny_epsilon_is_refused_with_a_clear_error(spec):
    with pytest.raises(ValueError, match=r"spec field 'epsilon' is .* too small"):
        ldp.build(spec)


@pytest.mark.parametrize("spec", EVERY_FAMILY, ids=lambda s: s["mechanism"])
def test_refusal_names_an_epsilon_above_the_request_that_the_spec_compiles(spec):
    with pytest.raises(ValueError, match="an ε its integer weights can") as error:
        ldp.build(spec)
    named = _named_minimum(error)
    assert named >= spec["epsilon"]
    mechanism = ldp.build({**spec, "epsilon": named})
    assert 0 < mechanism.epsilon_exact <= Decimal(named)


MONOTONE = [s for s in EVERY_FAMILY if s["mechanism"] not in ("geometric", "duchi")]


@pytest.mark.parametrize("spec", MONOTONE, ids=lambda s: s["mechanism"])
def test_where_feasibility_is_monotone_the_named_epsilon_is_the_least(spec):
    with pytest.raises(ValueError, match="too small") as error:
        ldp.build(spec)
    below = math.nextafter(_named_minimum(error), 0.0)
    with pytest.raises(ValueError, match="too small"):
        ldp.build({**spec, "epsilon": below})


WIDE_GRID = {"mechanism": "geometric", "low": "0", "high": "1000", "step": "1"}


@pytest.mark.parametrize("request_epsilon", [1e-9, 1e-4, 0.0123])
def test_wide_geometric_refusal_names_an_epsilon_it_compiles(request_epsilon):
    params, _ = validate_spec({**WIDE_GRID, "epsilon": request_epsilon})
    named, delivered = smallest_epsilon(REGISTRY["geometric"], params)
    assert named >= request_epsilon
    assert ldp.build({**WIDE_GRID, "epsilon": named}).epsilon_exact == delivered


def test_the_named_epsilon_does_not_depend_on_what_was_asked_before():
    from ldp.mechanisms import smallest

    params, _ = validate_spec({**WIDE_GRID, "epsilon": 0.0123})
    earlier, _ = validate_spec({**WIDE_GRID, "epsilon": 1e-9})
    smallest._CACHE.clear()
    alone = smallest_epsilon(REGISTRY["geometric"], params)
    smallest._CACHE.clear()
    smallest_epsilon(REGISTRY["geometric"], earlier)
    assert smallest_epsilon(REGISTRY["geometric"], params) == alone


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


def test_a_repeated_refusal_is_answered_from_memory_with_the_same_answer():
    from ldp.mechanisms import smallest

    params, _ = validate_spec({"mechanism": "grr", "k": 7, "epsilon": 1e-9})
    answer = smallest_epsilon(REGISTRY["grr"], params)
    remembered = len(smallest._CACHE)
    assert smallest_epsilon(REGISTRY["grr"], params) == answer
    assert len(smallest._CACHE) == remembered
