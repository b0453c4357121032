"""Exact privacy over the grid: integer weights, delivered ε <= requested."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest

import ldp
from ldp.exact import channel_epsilon, round_up_float

K_GRID = [2, 3, 5, 10, 100, 1000]
EPSILON_GRID = [0.05, 0.1, 0.25, 0.5, 1.0, math.log(3), 2.0, 4.0, 8.0, 10.0]
FAMILIES = ["grr", "sue", "oue", "olh", "hadamard"]


def row_sum(spec):
    w, k = spec["weights"], spec["k"]
    name = spec["mechanism"]
    if name == "forced_response":
        return w["truthful"] + w["forced_yes"] + w["forced_no"]
    if name in ("warner", "hadamard"):
        return w["keep"] + w["flip"]
    if name == "grr":
        return w["keep"] + (k - 1) * w["other"]
    if name == "olh":
        return w["keep"] + (w["g"] - 1) * w["other"]
    assert max(w["one_if_one"], w["one_if_zero"]) < w["total"]
    return w["total"]


def check_privacy(mechanism, requested):
    weights = mechanism.weights
    assert all(type(w) is int and w >= 1 for w in weights.values())
    assert row_sum(mechanism.spec) <= 2**32
    delivered = mechanism.epsilon_exact
    assert delivered <= Decimal(requested)
    assert Decimal(requested) - delivered <= Decimal("1e-6")
    assert Decimal(mechanism.epsilon) >= delivered
    assert Decimal(mechanism.epsilon_display) >= delivered


@pytest.mark.parametrize("epsilon", EPSILON_GRID)
@pytest.mark.parametrize("k", K_GRID)
@pytest.mark.parametrize("family", FAMILIES)
def test_delivered_epsilon_is_at_most_requested_and_within_1e_6(family, k, epsilon):
    check_privacy(ldp.build({"mechanism": family, "k": k, "epsilon": epsilon}), epsilon)


@pytest.mark.parametrize("epsilon", EPSILON_GRID)
def test_warner_delivered_epsilon_is_at_most_requested(epsilon):
    check_privacy(ldp.build({"mechanism": "warner", "epsilon": epsilon}), epsilon)


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 10.0])
@pytest.mark.parametrize("family", FAMILIES)
def test_largest_k_still_meets_the_privacy_gap(family, epsilon):
    check_privacy(
        ldp.build({"mechanism": family, "k": 4096, "epsilon": epsilon}), epsilon
    )


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("k", [2, 3, 10])
def test_grr_epsilon_equals_epsilon_of_its_channel(k, epsilon):
    mechanism = ldp.build({"mechanism": "grr", "k": k, "epsilon": epsilon})
    weights = mechanism.channel_weights().tolist()
    assert channel_epsilon(weights) == mechanism.epsilon_exact


def test_coin_design_has_weights_2_1_1_and_epsilon_exactly_ln_3():
    mechanism = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": 0.5, "forced_yes": 0.25, "forced_no": 0.25},
        }
    )
    assert mechanism.weights == {"truthful": 2, "forced_yes": 1, "forced_no": 1}
    assert mechanism.epsilon_exact == channel_epsilon([[3, 1], [1, 3]])
    assert mechanism.epsilon_exact == channel_epsilon(
        mechanism.channel_weights().tolist()
    )
    assert mechanism.epsilon == round_up_float(mechanism.epsilon_exact)
    assert Decimal(mechanism.epsilon) >= mechanism.epsilon_exact
    assert mechanism.epsilon_display == "1.099"


@pytest.mark.parametrize(
    "design",
    [
        ("7/10", "1/5", "1/10"),
        ("1/3", "1/3", "1/3"),
        ("999999/1000000", "1/2000000", "1/2000000"),
        ("1/2", "123456789/1000000000007", "0.5"),
    ],
)
def test_forced_response_epsilon_never_exceeds_the_designs(design):
    spec_design = dict(
        zip(("truthful", "forced_yes", "forced_no"), design, strict=True)
    )
    if sum(Fraction(x) for x in design) != 1:
        t = 1 - Fraction(design[1]) - Fraction(design[2])
        spec_design["truthful"] = str(t)
    mechanism = ldp.build({"mechanism": "forced_response", "design": spec_design})
    t, a, b = (Fraction(spec_design[name]) for name in spec_design)
    design_epsilon = max(math.log((t + a) / a), math.log((t + b) / b))
    assert mechanism.epsilon_exact <= Decimal(design_epsilon) + Decimal("1e-12")
    assert row_sum(mechanism.spec) <= 2**32
    assert all(w >= 1 for w in mechanism.weights.values())
