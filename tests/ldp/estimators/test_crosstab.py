"""Cross-tabs through the Kronecker product of two channels: seeded simulations."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.estimators.crosstab import (
    CELLS_MAX,
    crosstab_estimate,
    joint_histogram,
)

PAIRS = [
    (
        {"mechanism": "warner", "epsilon": 1.0},
        {"mechanism": "grr", "k": 3, "epsilon": 2},
    ),
    (
        {
            "mechanism": "forced_response",
            "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
        },
        {"mechanism": "ordinal", "k": 4, "epsilon": 2.0},
    ),
]


def joint_truth(k_a: int, k_b: int) -> np.ndarray:
    """A fixed joint distribution with dependence between the two answers."""
    weights = np.add.outer(np.arange(1, k_a + 1), 2 * np.arange(k_b, 0, -1)) ** 2
    return weights / weights.sum()


def simulate(spec_a, spec_b, n: int, seed: int):
    a, b = ldp.build(spec_a), ldp.build(spec_b)
    pi = joint_truth(a.k, b.k)
    rng = np.random.default_rng(seed)
    cells = rng.choice(pi.size, size=n, p=pi.reshape(-1))
    x_a, x_b = np.divmod(cells, b.k)
    y_a, y_b = a.randomize(x_a, rng), b.randomize(x_b, rng)
    m_a, m_b = a.channel_matrix().shape[1], b.channel_matrix().shape[1]
    counts = joint_histogram(y_a, y_b, m_a, m_b)
    return a, b, pi, crosstab_estimate(counts, a.channel_matrix(), b.channel_matrix())


@pytest.mark.parametrize(("spec_a", "spec_b"), PAIRS)
def test_crosstab_is_unbiased_within_four_standard_errors(spec_a, spec_b):
    # The mean of R independent estimates has SE = SE_one/sqrt(R).
    runs = [simulate(spec_a, spec_b, n=4000, seed=seed) for seed in range(40)]
    pi = runs[0][2]
    estimates = np.stack([r[3].estimate for r in runs])
    standard_error = np.stack([r[3].standard_error for r in runs]).mean(axis=0)
    mean = estimates.mean(axis=0)
    assert np.all(np.abs(mean - pi) <= 4 * standard_error / np.sqrt(len(runs)))


@pytest.mark.parametrize(("spec_a", "spec_b"), PAIRS)
def test_sandwich_standard_error_matches_the_spread_of_estimates(spec_a, spec_b):
    runs = [simulate(spec_a, spec_b, n=4000, seed=100 + seed) for seed in range(60)]
    estimates = np.stack([r[3].estimate for r in runs])
    predicted = np.stack([r[3].standard_error for r in runs]).mean(axis=0)
    empirical = estimates.std(axis=0, ddof=1)
    # The sample SD of 60 draws is within ±30% of sigma with overwhelming odds.
    assert np.all(np.abs(empirical / predicted - 1) < 0.3)


def test_wald_intervals_cover_the_truth_about_95_percent():
    spec_a, spec_b = PAIRS[0]
    hits, total = 0, 0
    for seed in range(200):
        _, _, pi, est = simulate(spec_a, spec_b, n=3000, seed=1000 + seed)
        interval = est.confidence_interval(0.95)
        low, high = interval.low, interval.high
        hits += int(np.sum((low <= pi) & (pi <= high)))
        total += pi.size
    # 1,200 cell-intervals: coverage 0.95 has SD ~0.0063 (cells are correlated,
    # so allow a wide band).
    assert 0.92 <= hits / total <= 0.98


def test_margins_equal_the_single_question_estimates_for_square_channels():
    spec_a, spec_b = PAIRS[0]
    a, _b, _, est = simulate(spec_a, spec_b, n=2000, seed=5)
    counts = est.counts
    row, col = est.margins()
    single_a = a.estimate(
        a.aggregate(np.repeat(np.arange(counts.shape[0]), counts.sum(axis=1)))
    )
    np.testing.assert_allclose(row, single_a.estimate, atol=1e-10)
    assert col.sum() == pytest.approx(1.0)


def test_consistent_table_is_on_the_simplex_and_estimate_sums_to_one():
    _, _, _, est = simulate(*PAIRS[1], n=300, seed=3)
    consistent = est.consistent()
    assert np.all(consistent >= 0)
    assert consistent.sum() == pytest.approx(1.0)
    assert est.estimate.sum() == pytest.approx(1.0)


def test_joint_histogram_indexes_pairs_row_major():
    counts = joint_histogram(np.array([0, 1, 1]), np.array([2, 0, 0]), 2, 3)
    assert counts.tolist() == [[0, 0, 1], [2, 0, 0]]


def test_joint_histogram_refuses_reports_outside_the_outputs():
    with pytest.raises(ValueError, match=r"\[0, 2\)"):
        joint_histogram(np.array([2]), np.array([0]), 2, 2)


def test_refuses_counts_of_the_wrong_shape():
    q = np.eye(2)
    with pytest.raises(ValueError, match="shape"):
        crosstab_estimate(np.ones((2, 3), dtype=int), q, q)


def test_refuses_a_channel_that_cannot_be_inverted():
    q = np.array([[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="not invertible"):
        crosstab_estimate(np.ones((2, 2), dtype=int), q, np.eye(2))


def test_refuses_too_many_cells():
    k = int(np.sqrt(CELLS_MAX)) + 1
    q = np.eye(k)
    with pytest.raises(ValueError, match="cells"):
        crosstab_estimate(np.ones((k, k), dtype=int), q, q)


@pytest.mark.parametrize("n", [12, 60, 400])
@pytest.mark.parametrize("seed", range(6))
def test_intervals_stay_within_zero_and_one_with_positive_width(n, seed):
    # Few reports put raw cell estimates far outside [0, 1].
    _, _, _, est = simulate(*PAIRS[0], n=n, seed=seed)
    interval = est.confidence_interval(0.95)
    assert np.all(interval.low >= 0.0)
    assert np.all(interval.high <= 1.0)
    assert np.all(interval.high > interval.low)


def test_identical_reports_still_give_intervals_of_positive_width():
    q = np.array([[0.75, 0.25], [0.25, 0.75]])
    est = crosstab_estimate(np.array([[10, 0], [0, 0]]), q, q)
    assert np.all(est.standard_error == 0.0)
    interval = est.confidence_interval(0.95)
    assert np.all(interval.high - interval.low > 0.0)
