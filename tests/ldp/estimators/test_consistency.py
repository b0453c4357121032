"""Consistency: simplex projection, EM, binomial MLE, and their lower MSE."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

import ldp
from ldp.estimators.consistency import (
    binomial_mle,
    em_channel,
    multinomial_mle,
    project_simplex,
)


def test_projection_of_a_simplex_point_is_itself():
    point = np.array([0.2, 0.3, 0.5])
    assert project_simplex(point) == pytest.approx(point)


def test_projection_subtracts_a_common_shift_and_clips_at_zero():
    assert project_simplex(np.array([0.5, 0.6, -0.2])) == pytest.approx([0.45, 0.55, 0])


def test_projection_is_the_nearest_simplex_point(rng):
    for _ in range(20):
        point = rng.normal(0.2, 0.4, size=5)
        projected = project_simplex(point)
        result = optimize.minimize(
            lambda x, point=point: np.sum((x - point) ** 2),
            np.full(5, 0.2),
            bounds=[(0, 1)] * 5,
            constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
            method="SLSQP",
            options={"ftol": 1e-12},
        )
        assert projected == pytest.approx(result.x, abs=1e-5)


def test_em_recovers_the_distribution_from_exact_report_shares():
    mechanism = ldp.build({"mechanism": "grr", "k": 4, "epsilon": 1.0})
    f = np.array([0.5, 0.3, 0.2, 0.0])
    channel = mechanism.channel_matrix()
    counts = channel.T @ f * 10_000
    assert em_channel(channel, counts, 10_000) == pytest.approx(f, abs=1e-4)


def test_binomial_mle_maximises_the_support_likelihood_on_the_simplex():
    p, q = np.full(5, 0.5), np.full(5, 0.27)
    counts, n = np.array([63, 48, 52, 45, 30]), 150

    def nll(x):
        lam = q + x * (p - q)
        return -np.sum(counts * np.log(lam) + (n - counts) * np.log(1 - lam))

    reference = optimize.minimize(
        nll,
        np.full(5, 0.2),
        bounds=[(0, 1)] * 5,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}],
        method="SLSQP",
        options={"ftol": 1e-14},
    )
    found = binomial_mle(counts, n, p, q)
    assert found.sum() == pytest.approx(1)
    assert nll(found) <= reference.fun + 1e-9


FAMILIES = ("forced_response", "warner", "grr", "sue", "oue", "olh", "hadamard")


def _spec(name):
    if name == "forced_response":
        return {
            "mechanism": name,
            "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
        }
    if name == "warner":
        return {"mechanism": name, "epsilon": 1.0}
    return {"mechanism": name, "k": 6, "epsilon": 1.0}


@pytest.mark.statistical
@pytest.mark.parametrize("name", FAMILIES)
def test_consistent_estimates_have_lower_mse_on_skewed_data_at_small_n(name):
    mechanism = ldp.build(_spec(name))
    k = mechanism.k
    f = np.array([0.95, 0.05]) if k == 2 else np.array([0.7, 0.2, 0.1, 0, 0, 0])
    rng = np.random.default_rng(7)
    n, surveys = 100, 300
    reports = mechanism.randomize(rng.choice(k, size=n * surveys, p=f), rng)
    errors = {"raw": 0.0, "norm-sub": 0.0, "mle": 0.0}
    for i in range(surveys):
        est = mechanism.estimate(mechanism.aggregate(reports[i * n : (i + 1) * n]))
        errors["raw"] += np.sum((est.estimate - f) ** 2)
        errors["norm-sub"] += np.sum((est.consistent("norm-sub") - f) ** 2)
        errors["mle"] += np.sum((est.consistent("mle") - f) ** 2)
    assert errors["norm-sub"] < errors["raw"]
    assert errors["mle"] < errors["raw"]


@pytest.mark.parametrize(
    "counts", [[500, 300, 150, 50], [400, 10, 5, 0], [0, 0, 0, 1000], [90, 3, 4, 3]]
)
def test_multinomial_mle_is_the_em_fixed_point(counts):
    mechanism = ldp.build({"mechanism": "grr", "k": 4, "epsilon": 1.0})
    counts = np.array(counts)
    closed = multinomial_mle(counts, mechanism.p_star, mechanism.q_star)
    channel = mechanism.channel_matrix()
    em = em_channel(channel, counts, counts.sum(), tol=1e-13, max_iter=200_000)

    def loglik(f):
        return np.sum(counts * np.log(channel.T @ f))

    assert loglik(closed) >= loglik(em) - 1e-9
    assert closed == pytest.approx(em, abs=2e-3)


def test_multinomial_mle_handles_asymmetric_forced_response():
    mechanism = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": "1/2", "forced_yes": "1/3", "forced_no": "1/6"},
        }
    )
    # 30% yes reports is below the forced-yes share 1/3: the MLE is "all no".
    closed = multinomial_mle(np.array([70, 30]), mechanism.p_star, mechanism.q_star)
    assert closed == pytest.approx([1, 0])
    # 60% yes reports: π̂ = (0.6 − 1/3)/(1/2) = 8/15 inside (0, 1).
    closed = multinomial_mle(np.array([40, 60]), mechanism.p_star, mechanism.q_star)
    assert closed == pytest.approx([7 / 15, 8 / 15])
