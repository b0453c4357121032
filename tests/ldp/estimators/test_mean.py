"""Means and distributions of ordinal and numeric answers: seeded simulations."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ldp
from ldp.counts import SupportCounts

SIMULATIONS = 2000
N = 1000

# (spec, true distribution over the input levels)
MEAN_CASES = {
    "duchi": (
        {"mechanism": "duchi", "low": "0", "high": "100", "step": "5", "epsilon": 1.0},
        "skewed",
    ),
    "piecewise": (
        {
            "mechanism": "piecewise",
            "low": "0",
            "high": "10",
            "step": "1",
            "epsilon": 2.0,
        },
        "skewed",
    ),
    "geometric": (
        {
            "mechanism": "geometric",
            "low": "0",
            "high": "10",
            "step": "1",
            "epsilon": 2.0,
        },
        "skewed",
    ),
    "gaussian": (
        {
            "mechanism": "gaussian",
            "low": "0",
            "high": "1",
            "step": "0.25",
            "epsilon": 3.0,
        },
        "skewed",
    ),
    "ordinal": ({"mechanism": "ordinal", "k": 5, "epsilon": 1.0}, "skewed"),
}


SEEDS = {
    "duchi": 101,
    "piecewise": 102,
    "geometric": 103,
    "gaussian": 104,
    "ordinal": 105,
}


def skewed(k: int) -> np.ndarray:
    """A skewed distribution: geometric decay from the bottom level."""
    f = 0.6 ** np.arange(k)
    return f / f.sum()


def simulate(mechanism, f: np.ndarray, n: int, sims: int, seed: int) -> np.ndarray:
    """Report histograms of ``sims`` surveys of ``n`` respondents, shape (sims, o)."""
    rng = np.random.default_rng(seed)
    answers = rng.choice(mechanism.k, size=sims * n, p=f)
    reports = mechanism.randomize(answers, rng).reshape(sims, n)
    offsets = np.arange(sims)[:, None] * mechanism.outputs
    flat = np.bincount((reports + offsets).ravel(), minlength=sims * mechanism.outputs)
    return flat.reshape(sims, mechanism.outputs)


@pytest.mark.parametrize("name", sorted(MEAN_CASES))
def test_mean_is_unbiased_and_intervals_cover(name):
    spec, _ = MEAN_CASES[name]
    mechanism = ldp.build(spec)
    f = skewed(mechanism.k)
    truth = float(f @ mechanism.input_values())
    histograms = simulate(mechanism, f, N, SIMULATIONS, seed=SEEDS[name])
    compiled = mechanism.spec
    estimates, errors, cover_t, cover_normal = [], [], 0, 0
    for counts in histograms:
        result = mechanism.estimate_mean(SupportCounts(N, counts, compiled))
        estimates.append(result.estimate)
        errors.append(result.standard_error)
        interval = result.confidence_interval(0.95)
        cover_t += interval.low <= truth <= interval.high
        interval = result.confidence_interval(0.95, method="normal")
        cover_normal += interval.low <= truth <= interval.high
    estimates, errors = np.asarray(estimates), np.asarray(errors)
    spread = estimates.std(ddof=1)
    assert abs(estimates.mean() - truth) <= 4 * spread / np.sqrt(SIMULATIONS)
    assert 0.93 <= cover_t / SIMULATIONS <= 0.97
    assert 0.93 <= cover_normal / SIMULATIONS <= 0.97
    # The reported SE matches the spread of the estimates (within 15%).
    assert np.mean(errors**2) == pytest.approx(spread**2, rel=0.15)


def test_ordinal_distribution_is_unbiased_with_covering_intervals():
    mechanism = ldp.build({"mechanism": "ordinal", "k": 5, "epsilon": 1.0})
    f = skewed(5)
    histograms = simulate(mechanism, f, N, SIMULATIONS, seed=7)
    compiled = mechanism.spec
    estimates, covered = [], np.zeros(5)
    for counts in histograms:
        result = mechanism.estimate(SupportCounts(N, counts, compiled))
        assert isinstance(result, ldp.ChannelEstimate) and result.identifiable
        estimates.append(result.estimate)
        interval = result.confidence_interval(0.95)
        covered += (interval.low <= f) & (f <= interval.high)
    estimates = np.asarray(estimates)
    spread = estimates.std(axis=0, ddof=1)
    assert np.all(
        np.abs(estimates.mean(axis=0) - f) <= 4 * spread / np.sqrt(SIMULATIONS)
    )
    assert np.all((covered / SIMULATIONS >= 0.93) & (covered / SIMULATIONS <= 0.97))


@pytest.mark.statistical
def test_consistent_estimates_lower_mse_on_skewed_data_at_small_n():
    mechanism = ldp.build({"mechanism": "ordinal", "k": 5, "epsilon": 1.0})
    f = np.array([0.8, 0.15, 0.05, 0.0, 0.0])
    sims, n = 100, 100
    histograms = simulate(mechanism, f, n, sims, seed=11)
    compiled = mechanism.spec
    errors = {"unbiased": 0.0, "norm-sub": 0.0, "mle": 0.0}
    for counts in histograms:
        result = mechanism.estimate(SupportCounts(n, counts, compiled))
        errors["unbiased"] += np.sum((result.estimate - f) ** 2)
        for method in ("norm-sub", "mle"):
            consistent = result.consistent(method)
            assert np.all(consistent >= 0)
            assert consistent.sum() == pytest.approx(1.0)
            errors[method] += np.sum((consistent - f) ** 2)
    assert errors["norm-sub"] < 0.8 * errors["unbiased"]
    assert errors["mle"] < 0.8 * errors["unbiased"]


def test_mle_matches_the_shared_em_fixed_point():
    from ldp.estimators.consistency import em_channel

    mechanism = ldp.build({"mechanism": "ordinal", "k": 4, "epsilon": 2.0})
    counts = np.array([400, 300, 200, 100])
    stat = SupportCounts(1000, counts, mechanism.spec)
    result = mechanism.estimate(stat)
    reference = em_channel(mechanism.channel_matrix(), counts, 1000)
    assert np.allclose(result.consistent("mle"), reference, atol=1e-4)
    with pytest.raises(ValueError, match="allowed"):
        result.consistent("bogus")


def test_distribution_estimate_is_exact_channel_inversion():
    mechanism = ldp.build(
        {"mechanism": "geometric", "low": "0", "high": "3", "step": "1", "epsilon": 1.0}
    )
    q = mechanism.channel_matrix()
    f = np.array([0.1, 0.2, 0.3, 0.4])
    counts = np.round(q.T @ f * 10**6).astype(np.int64)
    result = mechanism.estimate(
        SupportCounts(int(counts.sum()), counts, mechanism.spec)
    )
    assert np.allclose(result.estimate, f, atol=1e-5)
    lam = counts / counts.sum()
    a = np.linalg.inv(q.T)
    sandwich = a @ (np.diag(lam) - np.outer(lam, lam)) @ a.T / counts.sum()
    assert np.allclose(result.covariance, sandwich)
    assert np.allclose(result.standard_error, np.sqrt(np.diag(sandwich)))
    wide = result.confidence_interval(0.95, simultaneous=True)
    narrow = result.confidence_interval(0.95)
    assert np.all(wide.high - wide.low > narrow.high - narrow.low)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["n"] == int(counts.sum()) and len(data["consistent"]) == 4


def test_mean_estimate_hand_computed_and_serialisable():
    mechanism = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    )
    minus, plus = mechanism.output_values()
    stat = mechanism.aggregate([0] * 30 + [1] * 70)
    result = mechanism.estimate_mean(stat)
    scores = np.array([minus] * 30 + [plus] * 70)
    assert result.estimate == pytest.approx(scores.mean())
    assert result.standard_error == pytest.approx(scores.std(ddof=1) / 10)
    t = result.confidence_interval(0.9)
    z = result.confidence_interval(0.9, method="normal")
    assert t.low < z.low < result.estimate < z.high <= t.high <= 10
    with pytest.raises(ValueError, match="allowed"):
        result.confidence_interval(method="wald")
    with pytest.raises(ValueError, match="level"):
        result.confidence_interval(level=1.5)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["n"] == 100 and data["mechanism"] == "duchi"
    assert data["epsilon"] == mechanism.epsilon
    with pytest.raises(ValueError, match="at least 2"):
        mechanism.estimate_mean(mechanism.aggregate([1]))
