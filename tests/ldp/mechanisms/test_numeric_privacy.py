"""Exact privacy over a grid of ε, scales and grids (ordinal and numeric)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

import ldp
from tests.ldp.mechanisms.numeric_specs import grid

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
ORDINAL_KS = (2, 3, 7, 11, 101)
GRIDS = (("0", "1", "1"), ("0", "100", "5"), ("-1", "1", "0.01"))
CHEAP_LARGE_GRID = ("0", "1000", "1")


def _check(mechanism: ldp.Mechanism, epsilon: float) -> None:
    weights = mechanism.channel_weights()
    assert weights.min() >= 1
    assert np.all(weights.sum(axis=1) == mechanism.row_sum)
    assert mechanism.row_sum <= 2**32
    requested = Decimal(epsilon)
    assert mechanism.epsilon_exact <= requested
    assert requested - mechanism.epsilon_exact <= Decimal("1e-6")
    assert Decimal(mechanism.epsilon) >= mechanism.epsilon_exact
    assert Decimal(mechanism.epsilon_display) >= mechanism.epsilon_exact


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", ORDINAL_KS)
def test_ordinal_delivers_the_requested_epsilon(k, epsilon):
    _check(ldp.build({"mechanism": "ordinal", "k": k, "epsilon": epsilon}), epsilon)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("levels", GRIDS)
@pytest.mark.parametrize("name", ["geometric", "gaussian", "duchi", "piecewise"])
def test_numeric_delivers_the_requested_epsilon(name, levels, epsilon):
    _check(ldp.build(grid(name, *levels, epsilon)), epsilon)


@pytest.mark.parametrize("epsilon", (0.1, 5.0))
@pytest.mark.parametrize("name", ["geometric", "gaussian", "duchi", "piecewise"])
def test_numeric_delivers_the_requested_epsilon_on_1001_levels(name, epsilon):
    mechanism = ldp.build(grid(name, *CHEAP_LARGE_GRID, epsilon))
    assert mechanism.k == 1001
    _check(mechanism, epsilon)


@pytest.mark.parametrize("k", (2, 5, 11, 101))
def test_ordinal_is_not_the_loose_textbook_calibration(k):
    epsilon = 1.0
    mechanism = ldp.build({"mechanism": "ordinal", "k": k, "epsilon": epsilon})
    # Textbook: Q ∝ exp(ε u/(2Δu)), Δu = k − 1, i.e. β = e^{−ε/(2(k−1))}.
    levels = np.arange(k)
    textbook = np.exp(-epsilon * np.abs(levels[:, None] - levels) / (2 * (k - 1)))
    textbook /= textbook.sum(axis=1, keepdims=True)
    loose = ldp.accounting.pure_epsilon(textbook)
    assert loose < 0.75 * epsilon  # the textbook channel wastes the budget
    assert float(mechanism.epsilon_exact) == pytest.approx(epsilon, abs=1e-6)
    # The calibrated decay is about e^{−ε/(k−1)}: twice the textbook exponent.
    rows = mechanism.channel_matrix()
    beta = rows[0, 1] / rows[0, 0]
    assert beta == pytest.approx(np.exp(-epsilon / (k - 1)), rel=1e-3)


def test_geometric_decay_is_e_to_minus_epsilon_per_range():
    mechanism = ldp.build(grid("geometric", "0", "10", "1", 2.0))
    assert mechanism.alpha == pytest.approx(np.exp(-2.0 / 10), rel=1e-6)
    kernel = np.asarray(mechanism.weights["kernel"], dtype=float)
    middle = kernel[10]
    assert kernel[11] / middle == pytest.approx(mechanism.alpha, rel=1e-6)
    # Folded tails: the end entries carry α^{m−1}/(1 − α).
    expected = mechanism.alpha**10 / (1 - mechanism.alpha)
    assert kernel[0] / middle == pytest.approx(expected, rel=1e-6)


def test_gaussian_profile_is_zero_at_its_pure_epsilon_and_positive_below():
    mechanism = ldp.build(grid("gaussian", "0", "5", "1", 2.0))
    pure = float(mechanism.epsilon_exact)
    deltas = mechanism.privacy_profile([0.0, pure / 2, pure * 0.999, pure + 1e-9])
    assert deltas[0] > deltas[1] > deltas[2] > 0
    assert deltas[3] == 0
    q = mechanism.channel_matrix()
    tv = max(0.5 * np.abs(q[x] - q[y]).sum() for x in range(6) for y in range(6))
    assert deltas[0] == pytest.approx(tv, abs=1e-12)
    assert mechanism.sigma > 0
    assert mechanism.gdp_mu == pytest.approx(5 / mechanism.sigma)
    exact_mu = mechanism.gdp_mu_exact()
    assert 0 < exact_mu < np.inf
    # μ-GDP of the channel implies its δ(ε) is below the GDP curve.
    eps = np.array([0.25, 0.5, 1.0])
    assert np.all(
        mechanism.privacy_profile(eps) <= ldp.accounting.gdp_delta(exact_mu, eps) + 1e-9
    )


def test_duchi_realises_the_textbook_b_within_rounding():
    epsilon = 1.0
    mechanism = ldp.build(grid("duchi", "0", "1", "0.5", epsilon))
    b = (np.exp(epsilon) + 1) / (np.exp(epsilon) - 1)
    minus, plus = mechanism.output_values()
    # On [0, 1] the unit scale [−1, 1] maps by (t + 1)/2.
    assert 2 * plus - 1 == pytest.approx(b, rel=1e-6)
    assert 2 * minus - 1 == pytest.approx(-b, rel=1e-6)
    assert np.allclose(mechanism.scores(), mechanism.output_values())
    t = np.array([-1.0, 0.0, 1.0])
    unit = 4 * mechanism.mean_variance()  # value scale (t + 1)/2: factor 1/4
    assert np.allclose(unit, b**2 - t**2, rtol=1e-6)


def test_piecewise_layout_has_a_sliding_band():
    for epsilon in EPSILONS:
        mechanism = ldp.build(grid("piecewise", "0", "100", "5", epsilon))
        w = mechanism.weights
        assert w["outputs"] >= 2 * mechanism.k
        assert 1 <= w["width"] < w["outputs"]
        assert w["starts"][0] == 0
        assert w["starts"][-1] + w["width"] == w["outputs"]
        assert np.all(np.diff(w["starts"]) > 0)
        assert w["high"] / w["low"] <= np.exp(epsilon)
