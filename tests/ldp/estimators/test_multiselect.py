"""Multi-select share estimates: bias, variance, interval coverage, results.

Seeded simulations of 2,000 surveys per configuration.  Respondents are drawn
at random from a population in which a share f_v selects option v, so each
report supports v with probability ``λ_v = q + (p − q) f_v/L`` independently
(L = 1 for multi_rr, ℓ for padding-and-sampling) and the support count is
exactly ``C_v ~ Binomial(n, λ_v)``; the counts are drawn from that law.  The
mechanism tests check the per-report channel against the samplers themselves
(chi-square) and end-to-end runs through ``randomize`` confirm the estimates.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.counts import SupportCounts
from ldp.estimators import multiselect

SURVEYS = 2000
K_GRID = (2, 5, 10)
EPSILON_GRID = (0.5, 1.0, 2.0)
N_GRID = (100, 1_000, 10_000)


def spec_for(name: str, k: int, epsilon: float) -> dict[str, Any]:
    spec: dict[str, Any] = {"mechanism": name, "k": k, "epsilon": epsilon}
    if name == "padding_sampling":
        spec["ell"] = min(k, 3)
    return spec


def true_shares(k: int) -> np.ndarray:
    """Shares summing to at most ℓ = min(k, 3), with 0 and a large share."""
    f = np.linspace(0.0, 0.5, k)
    f[-1] = 0.9
    return f


def simulate(
    m: Any, n: int, f: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Support counts of SURVEYS simulated surveys (exact law) and the shares."""
    p, q = m.option_support
    lam = q + (p - q) * f / m.scale
    return rng.binomial(n, lam, size=(SURVEYS, m.k)), f


CASES = [
    (name, k, epsilon, n)
    for name in ("multi_rr", "padding_sampling")
    for k in K_GRID
    for epsilon in EPSILON_GRID
    for n in N_GRID
]


@pytest.mark.parametrize(("name", "k", "epsilon", "n"), CASES)
def test_bias_variance_and_coverage(name: str, k: int, epsilon: float, n: int) -> None:
    m = ldp.build(spec_for(name, k, epsilon))
    seed = [k, n, int(epsilon * 10), len(name)]
    counts, f = simulate(m, n, true_shares(k), np.random.default_rng(seed))
    p, q = m.option_support
    estimate = multiselect.unbiased_shares(counts, n, p, q, m.scale)
    variance = m.share_variance(f, n)
    # unbiased: mean within 4 standard errors of the mean
    assert np.all(np.abs(estimate.mean(axis=0) - f) <= 4 * np.sqrt(variance / SURVEYS))
    # empirical variance within 15% of the formula
    ratio = estimate.var(axis=0, ddof=1) / variance
    assert np.all((ratio > 0.85) & (ratio < 1.15)), ratio

    def coverage(method: str) -> np.ndarray:
        low, high = multiselect.share_confidence_bounds(
            counts, n, p, q, m.scale, level=0.95, method=method
        )
        return ((low <= f) & (f <= high)).mean(axis=0)

    # pooled over the k options (2,000 k intervals): per-option figures carry
    # Monte Carlo noise of ±0.005 and are checked exactly below
    if n <= 1_000:
        assert coverage("exact").mean() >= 0.94
    if n >= 1_000:
        assert 0.931 <= coverage("wald").mean() <= 0.969


def exact_coverage(m: Any, n: int, f: np.ndarray, method: str) -> np.ndarray:
    """Coverage without Monte Carlo noise: Σ_c P(C_v = c) 1[f_v in CI(c)]."""
    p, q = m.option_support
    counts = np.repeat(np.arange(n + 1)[:, None], m.k, axis=1)
    law = stats.binom.pmf(counts, n, q + (p - q) * f / m.scale)
    low, high = multiselect.share_confidence_bounds(
        counts, n, p, q, m.scale, method=method
    )
    return (law * ((low <= f) & (f <= high))).sum(axis=0)


@pytest.mark.parametrize("name", ["multi_rr", "padding_sampling"])
@pytest.mark.parametrize("k", K_GRID)
def test_exact_coverage_of_every_option_summed_over_the_binomial_law(
    name: str, k: int
) -> None:
    f = true_shares(k)
    for epsilon in EPSILON_GRID:
        m = ldp.build(spec_for(name, k, epsilon))
        for n in N_GRID:
            assert np.all(exact_coverage(m, n, f, "exact") >= 0.95 - 1e-9)
            if n >= 1_000:
                wald = exact_coverage(m, n, f, "wald")
                assert np.all((wald >= 0.931) & (wald <= 0.969)), wald


@pytest.mark.parametrize("name", ["multi_rr", "padding_sampling"])
def test_simultaneous_coverage_holds_for_all_options_jointly(name: str) -> None:
    m = ldp.build(spec_for(name, 10, 2.0))
    counts, f = simulate(m, 1_000, true_shares(10), np.random.default_rng(8))
    p, q = m.option_support
    low, high = multiselect.share_confidence_bounds(
        counts, 1_000, p, q, m.scale, method="wald", simultaneous=True
    )
    joint = np.all((low <= f) & (f <= high), axis=1).mean()
    assert joint >= 0.93


def population(k: int, most: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """An (n, k) selection matrix: each respondent selects 0..most options."""
    weights = np.linspace(1.0, 3.0, k)
    sizes = rng.integers(0, most + 1, size=n)
    matrix = np.zeros((n, k), dtype=bool)
    for size in range(1, most + 1):
        rows = np.flatnonzero(sizes == size)
        keys = rng.random((rows.size, k)) ** (1 / weights)  # weighted, no repeats
        chosen = np.argsort(-keys, axis=1)[:, :size]
        matrix[rows[:, None], chosen] = True
    return matrix


@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "multi_rr", "k": 6, "epsilon": 3.0},
        {"mechanism": "padding_sampling", "k": 6, "ell": 2, "epsilon": 1.0},
        {"mechanism": "padding_sampling", "k": 40, "ell": 4, "epsilon": 2.0},
    ],
)
def test_end_to_end_estimates_are_within_four_standard_errors(
    spec: dict[str, Any],
) -> None:
    m = ldp.build(spec)
    rng = np.random.default_rng(2026)
    answers = population(m.k, m.max_selections, 100_000, rng)
    f = answers.mean(axis=0)
    result = m.estimate(m.aggregate(m.randomize(answers, rng)))
    se = np.sqrt(m.share_variance(f, answers.shape[0]))
    assert np.all(np.abs(result.estimate - f) <= 4 * se)
    assert np.allclose(result.standard_error, se, rtol=0.05)
    interval = result.confidence_interval()
    assert np.mean((interval.low <= f) & (f <= interval.high)) >= 0.8


def test_padding_estimate_is_ell_times_the_grr_estimate() -> None:
    m = ldp.build({"mechanism": "padding_sampling", "k": 4, "ell": 3, "epsilon": 1.0})
    counts = np.array([30, 50, 20, 10, 40, 25, 25])
    result = m.estimate(SupportCounts(200, counts, m.spec))
    p = m.weights["keep"] / m.row_sum
    q = m.weights["other"] / m.row_sum
    grr = (counts[:4] / 200 - q) / (p - q)
    assert np.allclose(result.estimate, 3 * grr)
    lam = counts[:4] / 200
    assert np.allclose(
        result.standard_error, 3 * np.sqrt(lam * (1 - lam) / 200) / (p - q)
    )
    assert result.scale == 3 and result.counts.tolist() == [30, 50, 20, 10]
    assert result.epsilon == m.epsilon == result.epsilon_per_option


def test_result_object_matches_the_vectorised_functions() -> None:
    m = ldp.build({"mechanism": "padding_sampling", "k": 5, "ell": 2, "epsilon": 1.0})
    counts, _ = simulate(m, 500, true_shares(5), np.random.default_rng(4))
    p, q = m.option_support
    for row in counts[:5]:
        rest = 500 - int(row.sum())  # reports of a padding item: a histogram
        padded = np.concatenate([row, [rest // 2, rest - rest // 2]])
        result = m.estimate(SupportCounts(500, padded, m.spec))
        for method in ("exact", "wilson", "wald"):
            for simultaneous in (False, True):
                interval = result.confidence_interval(0.9, method, simultaneous)
                low, high = multiselect.share_confidence_bounds(
                    row, 500, p, q, 2, 0.9, method, simultaneous
                )
                assert np.array_equal(interval.low, low)
                assert np.array_equal(interval.high, high)


@pytest.mark.parametrize("name", ["multi_rr", "padding_sampling"])
def test_intervals_are_clipped_nested_and_ordered(name: str) -> None:
    m = ldp.build(spec_for(name, 5, 1.0))
    rng = np.random.default_rng(17)
    answers = population(5, m.max_selections, 3_000, rng)
    result = m.estimate(m.aggregate(m.randomize(answers, rng)))
    for method in ("exact", "wilson"):
        one = result.confidence_interval(0.95, method)
        joint = result.confidence_interval(0.95, method, simultaneous=True)
        narrow = result.confidence_interval(0.5, method)
        for interval in (one, joint, narrow):
            assert np.all((interval.low >= 0) & (interval.high <= 1))
            assert np.all(interval.low <= interval.high)
        assert np.all(joint.low <= one.low) and np.all(joint.high >= one.high)
        assert np.all(narrow.low >= one.low) and np.all(narrow.high <= one.high)
    wald = result.confidence_interval(method="wald")
    assert np.allclose(
        (wald.high - wald.low) / 2, 1.959963984540054 * result.standard_error
    )
    with pytest.raises(ValueError, match="method"):
        result.confidence_interval(method="bootstrap")
    with pytest.raises(ValueError, match="level"):
        result.confidence_interval(level=1.5)


def test_shares_are_not_a_distribution() -> None:
    m = ldp.build({"mechanism": "multi_rr", "k": 4, "epsilon": 8.0})
    rng = np.random.default_rng(1)
    everyone_all = np.ones((20_000, 4), dtype=np.uint8)
    result = m.estimate(m.aggregate(m.randomize(everyone_all, rng)))
    assert np.allclose(result.estimate, 1.0, atol=0.05)
    assert result.estimate.sum() > 3.5
    assert np.array_equal(result.consistent(), np.clip(result.estimate, 0, 1))
    assert not result.sums_to_one
    assert result.consistent_methods == ("clip",)
    with pytest.raises(ValueError, match="method is 'norm-sub'"):
        result.consistent("norm-sub")  # no simplex projection for shares of people


def test_to_dict_is_json_and_complete() -> None:
    m = ldp.build({"mechanism": "multi_rr", "k": 3, "epsilon": 1.5})
    result = m.estimate(m.aggregate([[1, 0, 1], [0, 0, 1], [1, 1, 1]]))
    data = json.loads(json.dumps(result.to_dict()))
    assert data["mechanism"] == "multi_rr" and data["n"] == 3
    assert data["counts"] == [2, 1, 3] and data["scale"] == 1
    assert data["epsilon"] == m.epsilon
    assert data["epsilon_per_option"] == m.epsilon_per_option
    assert len(data["estimate"]) == len(data["standard_error"]) == 3


def test_estimate_refuses_other_specs_and_empty_counts() -> None:
    m = ldp.build({"mechanism": "multi_rr", "k": 3, "epsilon": 1.5})
    other = ldp.build({"mechanism": "multi_rr", "k": 3, "epsilon": 1.0})
    with pytest.raises(ValueError, match="different spec"):
        m.estimate(other.aggregate([[1, 0, 1]]))
    with pytest.raises(ValueError, match="zero reports"):
        m.estimate(SupportCounts(0, np.zeros(3, dtype=np.int64), m.spec))
