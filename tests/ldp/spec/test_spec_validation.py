"""Spec validation: every error names the field, the bad value and the rule."""

from __future__ import annotations

import math

import pytest

import ldp

COIN = {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}


def grr(**changes):
    spec = {"version": 1, "mechanism": "grr", "k": 5, "epsilon": 1.0}
    spec.update(changes)
    return spec


def forced(design):
    return {"mechanism": "forced_response", "design": design}


@pytest.mark.parametrize(
    ("epsilon", "message"),
    [
        *(
            (bad, r"'epsilon' is .*allowed: 0 < epsilon <= 10")
            for bad in (0, -1.0, 0.0)
        ),
        *((bad, "'epsilon' must be a number") for bad in (True, "1", None, [1])),
        *((bad, "'epsilon'") for bad in (math.nan, math.inf)),
    ],
)
def test_rejects_epsilon_that_is_not_a_finite_number_above_zero(epsilon, message):
    with pytest.raises(ValueError, match=message):
        ldp.build(grr(epsilon=epsilon))


def test_rejects_epsilon_above_maximum():
    with pytest.raises(ValueError, match=r"'epsilon' is 10.5"):
        ldp.build(grr(epsilon=10.5))


def test_accepts_epsilon_at_maximum():
    assert ldp.build(grr(epsilon=ldp.EPSILON_MAX)).epsilon <= 10


def test_rejects_missing_epsilon():
    with pytest.raises(ValueError, match="'epsilon' is missing"):
        ldp.build({"mechanism": "grr", "k": 5})


@pytest.mark.parametrize("k", [1, 0, -3, 4097])
def test_rejects_k_outside_range(k):
    with pytest.raises(ValueError, match=rf"'k' is {k}; allowed: 2 <= k <= 4096"):
        ldp.build(grr(k=k))


@pytest.mark.parametrize("k", [5.0, True, "5", None])
def test_rejects_k_that_is_not_an_integer(k):
    with pytest.raises(ValueError, match="'k' must be an integer"):
        ldp.build(grr(k=k))


def test_accepts_k_at_maximum():
    assert ldp.build(grr(k=ldp.K_MAX)).k == 4096


def test_rejects_k_other_than_2_for_binary_mechanisms():
    with pytest.raises(ValueError, match="'k' is 3; allowed for warner: 2"):
        ldp.build({"mechanism": "warner", "k": 3, "epsilon": 1.0})


def test_rejects_unknown_mechanism():
    with pytest.raises(ValueError, match=r"'mechanism' is 'laplace'; allowed: .*grr"):
        ldp.build(grr(mechanism="laplace"))


@pytest.mark.parametrize("version", [2, 0, "1", True, 1.0])
def test_rejects_unknown_version(version):
    with pytest.raises(ValueError, match=r"'version' is .*allowed: 1"):
        ldp.build(grr(version=version))


def test_accepts_missing_version_and_compiles_it():
    spec = {"mechanism": "grr", "k": 5, "epsilon": 1.0}
    assert ldp.build(spec).spec["version"] == ldp.SPEC_VERSION


def test_rejects_unknown_field():
    with pytest.raises(ValueError, match=r"\['colour'\] not allowed"):
        ldp.build(grr(colour="red"))


def test_rejects_epsilon_for_forced_response():
    with pytest.raises(ValueError, match=r"\['epsilon'\] not allowed"):
        ldp.build({**forced(COIN), "epsilon": 1.0})


def test_rejects_spec_that_is_not_an_object():
    with pytest.raises(ValueError, match="JSON object"):
        ldp.build([("mechanism", "grr")])


def test_rejects_design_not_summing_to_one():
    design = {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/5"}
    with pytest.raises(ValueError, match="'design' sums to 19/20"):
        ldp.build(forced(design))


@pytest.mark.parametrize("bad", [0, -0.25, "0/1"])
def test_rejects_design_probability_not_above_zero(bad):
    design = {"truthful": "1/2", "forced_yes": bad, "forced_no": "1/2"}
    with pytest.raises(ValueError, match=r"'design.forced_yes' is .*allowed: > 0"):
        ldp.build(forced(design))


@pytest.mark.parametrize("bad", ["half", "1/0", True, None])
def test_rejects_design_probability_that_is_not_a_number(bad):
    design = {"truthful": bad, "forced_yes": "1/4", "forced_no": "1/4"}
    with pytest.raises(ValueError, match=r"'design\.truthful'"):
        ldp.build(forced(design))


def test_rejects_design_with_missing_or_extra_fields():
    with pytest.raises(ValueError, match="'design' has fields"):
        ldp.build(forced({"truthful": "1/2", "forced_yes": "1/2"}))


def test_accepts_float_design_read_through_its_decimal_string():
    design = {"truthful": 0.7, "forced_yes": 0.2, "forced_no": 0.1}
    assert ldp.build(forced(design)).spec["design"]["truthful"] == "7/10"


def test_rejects_design_whose_weight_would_round_to_zero():
    # Denominators beyond 2^32 force rounding; a tiny truthful share vanishes.
    design = {
        "truthful": "1/100000000000",
        "forced_yes": "49999999999/100000000000",
        "forced_no": "1/2",
    }
    with pytest.raises(ValueError, match=r"'design\.truthful'.*weight of 0"):
        ldp.build(forced(design))


def test_rejects_compiled_weights_that_drifted():
    spec = ldp.build(grr()).spec
    spec["weights"]["keep"] += 1
    with pytest.raises(ValueError, match=r"'weights' .*drifted"):
        ldp.build(spec)


def test_rejects_compiled_weights_with_extra_keys():
    spec = ldp.build(grr()).spec
    spec["weights"]["extra"] = 1
    with pytest.raises(ValueError, match="drifted"):
        ldp.build(spec)


@pytest.mark.parametrize("g", [1, 2**16 + 1, 4.0, True])
def test_rejects_olh_hash_range_outside_range(g):
    with pytest.raises(ValueError, match=r"'g' is .*allowed: integers 2 <= g"):
        ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0, "g": g})


def test_rejects_hash_range_for_other_mechanisms():
    with pytest.raises(ValueError, match=r"\['g'\] not allowed"):
        ldp.build(grr(g=4))


@pytest.mark.parametrize("bad", [True, 2.0, "2"])
def test_rejects_compiled_weights_that_are_not_plain_integers(bad):
    spec = ldp.build(forced(COIN)).spec
    assert spec["weights"]["forced_yes"] == 1
    spec["weights"]["truthful"] = bad if bad is not True else True
    spec["weights"]["forced_yes"] = True if bad is True else 1
    with pytest.raises(ValueError, match="drifted"):
        ldp.build(spec)
