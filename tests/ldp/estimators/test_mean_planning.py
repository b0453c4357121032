"""Choosing a numeric mechanism and planning the mean's margin of error."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from ldp.mechanisms.registry import for_kind
from ldp.planning import mean_noise_variance

NUMERIC = [family.name for family in for_kind("numeric")]


def _worst_variance(spec: dict) -> float:
    """Independent: max over x of Var(s[Y] | x) from the channel and scores."""
    mechanism = ldp.build(spec)
    q = mechanism.channel_matrix()
    s = np.linalg.lstsq(q, mechanism.input_values(), rcond=None)[0]
    return float(np.max(q @ s**2 - (q @ s) ** 2))


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 5.0])
def test_recommend_numeric_picks_the_lowest_worst_case_variance(epsilon):
    result = ldp.recommend_numeric(low="0", high="100", step="5", epsilon=epsilon)
    names = [alt.mechanism for alt in result.alternatives]
    assert sorted(names) == sorted(NUMERIC)
    variances = [alt.variance for alt in result.alternatives]
    assert variances == sorted(variances)
    assert result.variance == variances[0]
    assert result.mechanism == names[0] == result.spec["mechanism"]
    assert ldp.build(result.spec).spec == result.spec
    for alt in result.alternatives:
        if math.isfinite(alt.variance):
            assert alt.variance == pytest.approx(_worst_variance(alt.spec), rel=1e-6)


def test_duchi_wins_at_small_epsilon_and_piecewise_or_geometric_at_large():
    small = ldp.recommend_numeric(low=0, high=10, step=1, epsilon=0.5)
    assert small.mechanism == "duchi"
    large = ldp.recommend_numeric(low=0, high=10, step=1, epsilon=5.0)
    assert large.mechanism in ("piecewise", "geometric")
    variance = {alt.mechanism: alt.variance for alt in large.alternatives}
    assert variance["piecewise"] < variance["duchi"]


def test_planning_helpers_agree():
    mechanism = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    )
    noise = mean_noise_variance(mechanism)
    total = ldp.mean_worst_case_variance(mechanism)
    assert total == pytest.approx(noise + 10**2 / 4)
    margin = ldp.mean_margin_of_error(mechanism, 1000)
    assert margin == pytest.approx(1.959963984540054 * math.sqrt(total / 1000))
    n = ldp.mean_sample_size(mechanism, margin)
    assert n in (1000, 1001)
    assert ldp.mean_margin_of_error(mechanism, n) <= margin * (1 + 1e-12)
    with pytest.raises(ValueError, match="n"):
        ldp.mean_margin_of_error(mechanism, 0)
    with pytest.raises(ValueError, match="margin"):
        ldp.mean_sample_size(mechanism, 0.0)
    with pytest.raises(ValueError, match="level"):
        ldp.mean_margin_of_error(mechanism, 10, level=1.0)


def test_margin_covers_the_simulated_spread():
    # Worst-case planning variance bounds the real variance of the estimate.
    mechanism = ldp.build(
        {
            "mechanism": "piecewise",
            "low": "0",
            "high": "1",
            "step": "0.5",
            "epsilon": 1.0,
        }
    )
    rng = np.random.default_rng(3)
    n, sims = 400, 400
    answers = rng.integers(0, 2, size=(sims, n)) * 2  # half at 0, half at 1
    reports = mechanism.randomize(answers.ravel(), rng).reshape(sims, n)
    means = mechanism.scores()[reports].mean(axis=1)
    assert means.var(ddof=1) * n <= 1.15 * ldp.mean_worst_case_variance(mechanism)


def test_a_biased_score_has_no_sample_size():
    mechanism = ldp.build(
        {"mechanism": "gaussian", "low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    )
    assert math.isfinite(mean_noise_variance(mechanism))
    # Simulate a channel singular to working precision: the score misses Q s = v.
    mechanism._score_solution = (mechanism.scores(), 1e-3)
    assert mechanism.score_bias == 1e-3
    assert mean_noise_variance(mechanism) == math.inf
    assert ldp.mean_margin_of_error(mechanism, 1000) == math.inf
    with pytest.raises(ValueError, match="singular"):
        ldp.mean_sample_size(mechanism, 1.0)
