"""Seeded simulations of the regression estimators (``statistical`` tier).

Each coverage check runs 1,000 simulated surveys of n = 2,000: the Monte Carlo
standard error of a 0.95 coverage is then sqrt(0.95 · 0.05 / 1000) = 0.0069,
so the band [0.93, 0.97] is about three standard errors wide either side.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import ldp

REPLICATIONS = 1000
N = 2000
BETA = np.array([-0.5, 0.8, 0.6])
"""Intercept, a standard-normal covariate and a 0/1 covariate."""

BINARY_SPECS = {
    "coin": {
        "mechanism": "forced_response",
        "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
    },
    "warner": {"mechanism": "warner", "epsilon": 1.5},
    "unrelated_question": ldp.unrelated_question_spec("3/5", "1/3"),
}


def _covariates(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.column_stack([np.ones(n), rng.normal(size=n), rng.integers(0, 2, n)])


def _ordinary_logit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Newton–Raphson on the plain logistic score, with model-based SEs."""
    beta = np.zeros(x.shape[1])
    for _ in range(100):
        mu = special.expit(x @ beta)
        info = x.T @ (x * (mu * (1 - mu))[:, None])
        step = np.linalg.solve(info, x.T @ (y - mu))
        beta = beta + step
        if np.max(np.abs(step)) < 1e-12:
            break
    mu = special.expit(x @ beta)
    info = x.T @ (x * (mu * (1 - mu))[:, None])
    return beta, np.sqrt(np.diag(np.linalg.inv(info)))


@pytest.mark.statistical
@pytest.mark.parametrize("name", sorted(BINARY_SPECS))
def test_logistic_wald_intervals_cover_at_95_percent_with_negligible_bias(name):
    mechanism = ldp.build(BINARY_SPECS[name])
    rng = np.random.default_rng(20261123)
    estimates = np.empty((REPLICATIONS, 3))
    covered = np.zeros((REPLICATIONS, 3), dtype=bool)
    for r in range(REPLICATIONS):
        x = _covariates(rng, N)
        truth = (rng.random(N) < special.expit(x @ BETA)).astype(np.int64)
        fit = ldp.logistic_regression(mechanism.randomize(truth, rng), x, mechanism)
        ci = fit.confidence_interval(0.95)
        estimates[r] = fit.coef
        covered[r] = (ci.low <= BETA) & (ci.high >= BETA)
    coverage = covered.mean(axis=0)
    assert np.all((coverage >= 0.93) & (coverage <= 0.97)), coverage
    spread = estimates.std(axis=0)
    bias = estimates.mean(axis=0) - BETA
    # The MLE's O(1/n) bias (away from 0, as for any logistic MLE) is a small
    # fraction of its standard deviation: at most 0.15 of it.
    assert np.all(np.abs(bias) <= 0.15 * spread), (bias, spread)


def _expected_se_ratio(x: np.ndarray, beta: np.ndarray, p: float, q: float):
    """Asymptotic SE(randomized)/SE(true data) from the two information matrices."""
    s = special.expit(x @ beta)
    lam = q + (p - q) * s
    w_rr = ((p - q) * s * (1 - s)) ** 2 / (lam * (1 - lam))
    w_true = s * (1 - s)
    cov_rr = np.linalg.inv(x.T @ (x * w_rr[:, None]))
    cov_true = np.linalg.inv(x.T @ (x * w_true[:, None]))
    return np.sqrt(np.diag(cov_rr) / np.diag(cov_true))


@pytest.mark.statistical
def test_logistic_fit_converges_to_the_ordinary_fit_on_the_true_answers():
    mechanism = ldp.build(BINARY_SPECS["coin"])
    rng = np.random.default_rng(7)
    gaps = []
    for n in (2_000, 20_000, 200_000):
        x = _covariates(rng, n)
        truth = (rng.random(n) < special.expit(x @ BETA)).astype(np.int64)
        fit = ldp.logistic_regression(mechanism.randomize(truth, rng), x, mechanism)
        beta_true, se_true = _ordinary_logit(x, truth.astype(float))
        # β̂_true is efficient given the true answers, so
        # Var(β̂_rr − β̂_true) ≈ Var(β̂_rr) − Var(β̂_true).
        gap = np.abs(fit.coef - beta_true)
        allowed = 4 * np.sqrt(fit.standard_error**2 - se_true**2)
        assert np.all(gap <= allowed), (n, gap, allowed)
        gaps.append(gap.max())
        expected = _expected_se_ratio(x, BETA, fit.p, fit.q)
        ratio = fit.standard_error / se_true
        tolerance = 0.15 if n == 2_000 else 0.05 if n == 20_000 else 0.02
        np.testing.assert_allclose(ratio, expected, rtol=tolerance)
    assert gaps[2] < gaps[0] / 3, gaps


LINEAR_SPECS = {
    "duchi": {
        "mechanism": "duchi",
        "low": "0",
        "high": "40",
        "step": "1",
        "epsilon": 2,
    },
    "piecewise": {
        "mechanism": "piecewise",
        "low": "0",
        "high": "40",
        "step": "1",
        "epsilon": 2,
    },
}
LINEAR_BETA = np.array([8.0, 12.0, 8.0])
"""E[v | x, g] = 40 (0.2 + 0.3 x + 0.2 g) for v ~ Binomial(40, 0.2 + 0.3 x + 0.2 g)."""


@pytest.mark.statistical
@pytest.mark.parametrize("name", sorted(LINEAR_SPECS))
def test_score_regression_hc1_intervals_cover_at_95_percent_without_bias(name):
    mechanism = ldp.build(LINEAR_SPECS[name])
    rng = np.random.default_rng(20261124)
    estimates = np.empty((REPLICATIONS, 3))
    covered = np.zeros((REPLICATIONS, 3), dtype=bool)
    for r in range(REPLICATIONS):
        x = np.column_stack([np.ones(N), rng.random(N), rng.integers(0, 2, N)])
        truth = rng.binomial(40, 0.2 + 0.3 * x[:, 1] + 0.2 * x[:, 2])
        fit = ldp.score_regression(mechanism.randomize(truth, rng), x, mechanism)
        ci = fit.confidence_interval(0.95)
        estimates[r] = fit.coef
        covered[r] = (ci.low <= LINEAR_BETA) & (ci.high >= LINEAR_BETA)
    coverage = covered.mean(axis=0)
    assert np.all((coverage >= 0.93) & (coverage <= 0.97)), coverage
    bias = estimates.mean(axis=0) - LINEAR_BETA
    monte_carlo_se = estimates.std(axis=0) / np.sqrt(REPLICATIONS)
    assert np.all(np.abs(bias) <= 4 * monte_carlo_se), (bias, monte_carlo_se)


@pytest.mark.statistical
def test_score_regression_converges_to_ols_on_the_true_values():
    mechanism = ldp.build(LINEAR_SPECS["duchi"])
    rng = np.random.default_rng(8)
    gaps = []
    for n in (2_000, 20_000, 200_000):
        x = np.column_stack([np.ones(n), rng.random(n), rng.integers(0, 2, n)])
        truth = rng.binomial(40, 0.2 + 0.3 * x[:, 1] + 0.2 * x[:, 2])
        fit = ldp.score_regression(mechanism.randomize(truth, rng), x, mechanism)
        plain = ldp.score_regression(truth.astype(float), x)
        # The scores are the true values plus noise with mean 0 given them.
        gap = np.abs(fit.coef - plain.coef)
        allowed = 4 * np.sqrt(fit.standard_error**2 - plain.standard_error**2)
        assert np.all(gap <= allowed), (n, gap, allowed)
        gaps.append(gap.max())
    assert gaps[2] < gaps[0] / 3, gaps
