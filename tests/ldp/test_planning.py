"""Planning: the worked sample sizes, margins and power of docs/maths.md, section 7."""

from __future__ import annotations

import math

import pytest

import ldp
from ldp.planning import (
    margin_of_error,
    power,
    sample_size,
    sample_size_for_power,
    variance_at_zero,
    worst_case_variance,
)


def warner(epsilon):
    return ldp.build({"mechanism": "warner", "epsilon": epsilon})


def coin():
    return ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
        }
    )


def test_plus_minus_5_points_without_privacy_needs_385():
    assert sample_size(None, 0.05) == 385


@pytest.mark.parametrize(
    ("epsilon", "expected"),
    [(2.0, 663), (math.log(3), 1537), (1.0, 1799), (0.5, 6405)],
)
def test_plus_minus_5_points_for_yes_no_with_warner(epsilon, expected):
    # z^2 V / m^2 is 662.29, 1536.58, 1798.84 and 6404.02: rounded up.
    assert sample_size(warner(epsilon), 0.05) == expected


@pytest.mark.parametrize(
    ("epsilon", "worked_n"), [(2.0, 662), (math.log(3), 1537), (1.0, 1799), (0.5, 6404)]
)
def test_worked_sample_sizes_give_a_margin_of_5_points_to_within_rounding(
    epsilon, worked_n
):
    # docs/maths.md rounds 662.29 and 6404.02 to the nearest integer; at those n
    # the margin exceeds 0.05 by about 1e-5, which is why we round up.
    assert margin_of_error(warner(epsilon), worked_n) == pytest.approx(0.05, abs=2e-5)


def test_plus_minus_5_points_with_the_coin_design_needs_1537():
    assert sample_size(coin(), 0.05) == 1537


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_sample_size_is_the_least_n_meeting_the_margin(epsilon):
    mechanism = warner(epsilon)
    n = sample_size(mechanism, 0.05)
    assert margin_of_error(mechanism, n) <= 0.05
    assert margin_of_error(mechanism, n - 1) > 0.05


def test_worst_case_variance_of_warner_is_the_design_effect_over_four():
    e = math.exp(1.0)
    assert worst_case_variance(warner(1.0)) == pytest.approx(
        ((e + 1) / (e - 1)) ** 2 / 4
    )


def test_variance_at_zero_matches_wang_et_al_for_grr_and_oue():
    e = math.exp(1.0)
    grr = ldp.build({"mechanism": "grr", "k": 10, "epsilon": 1.0})
    oue = ldp.build({"mechanism": "oue", "k": 10, "epsilon": 1.0})
    assert variance_at_zero(grr) == pytest.approx((e + 8) / (e - 1) ** 2, rel=1e-6)
    assert variance_at_zero(oue) == pytest.approx(4 * e / (e - 1) ** 2, rel=1e-6)


def test_margin_of_error_shrinks_with_the_square_root_of_n():
    mechanism = warner(1.0)
    assert margin_of_error(mechanism, 400) == pytest.approx(
        2 * margin_of_error(mechanism, 1600)
    )


def test_sample_size_for_power_reaches_the_requested_power():
    mechanism = coin()
    n = sample_size_for_power(mechanism, 0.2, 0.3, alpha=0.05, power=0.8)
    assert power(mechanism, n, 0.2, 0.3) >= 0.8
    assert power(mechanism, n - 1, 0.2, 0.3) < 0.8


def test_sample_size_for_power_matches_the_closed_form_formula():
    # λ_j = a + t π_j with a = 1/4, t = 1/2.
    lam0, lam1 = 0.25 + 0.5 * 0.2, 0.25 + 0.5 * 0.3
    z_a, z_b = 1.6448536269514722, 0.8416212335729143
    top = z_a * math.sqrt(lam0 * (1 - lam0)) + z_b * math.sqrt(lam1 * (1 - lam1))
    expected = math.ceil(top**2 / (0.25 * 0.1**2))
    assert sample_size_for_power(coin(), 0.2, 0.3) == expected


def test_power_under_the_null_is_alpha():
    assert power(coin(), 500, 0.3, 0.3, alpha=0.05) == pytest.approx(0.05)


def test_power_grows_with_n():
    mechanism = warner(1.0)
    assert power(mechanism, 200, 0.5, 0.6) < power(mechanism, 2000, 0.5, 0.6)


def test_sample_size_rejects_margin_outside_zero_one():
    with pytest.raises(ValueError, match="margin is 0"):
        sample_size(warner(1.0), 0)


def test_margin_rejects_level_outside_zero_one():
    with pytest.raises(ValueError, match=r"level is 1\.2"):
        margin_of_error(warner(1.0), 100, level=1.2)


def test_power_rejects_share_outside_zero_one():
    with pytest.raises(ValueError, match=r"share is 1\.5"):
        power(warner(1.0), 100, 0.5, 1.5)


def test_sample_size_for_power_rejects_equal_shares():
    with pytest.raises(ValueError, match="must differ"):
        sample_size_for_power(warner(1.0), 0.5, 0.5)


def test_margin_of_error_of_padding_sampling_includes_the_ell_scaling():
    mechanism = ldp.build(
        {"mechanism": "padding_sampling", "k": 20, "ell": 3, "epsilon": 2.0}
    )
    expected = 1.959963984540054 * (mechanism.worst_case_variance() / 1000) ** 0.5
    assert ldp.margin_of_error(mechanism, 1000) == pytest.approx(expected)
    assert ldp.worst_case_variance(mechanism) > 3**2 * 0.25
