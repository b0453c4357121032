"""Binned distributions: the EM fit summed into bins, with bootstrap intervals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ldp
from ldp.estimators.binned import (
    METHOD,
    bin_index,
    binned_distribution,
    direct_interval,
    grid_widened,
    mechanism_distribution,
)
from ldp.estimators.channel.algebra import channel_mle
from ldp.estimators.consistency import binomial_mle
from ldp.estimators.level_channels import HistogramChannel, UnaryChannel, level_channel

GRID = {"low": "0", "high": "40", "step": "1", "epsilon": 1.0}


def _hours(mechanism: str = "piecewise", n: int = 500, seed: int = 3):
    m = ldp.build({"mechanism": mechanism, **GRID})
    rng = np.random.default_rng(seed)
    truth = np.exp(-np.arange(41) / 8.0)
    answers = rng.choice(41, size=n, p=truth / truth.sum())
    return m, m.aggregate(m.randomize(answers, rng))


def test_bin_shares_are_the_em_fit_summed_over_each_bins_levels():
    m, stat = _hours()
    d = mechanism_distribution(m, stat, [0, 10, 20, 40], resamples=20, seed=1)
    assert d is not None
    edges = [0, 10, 20, 41]
    expected = [d.levels[a:b].sum() for a, b in itertools.pairwise(edges)]
    np.testing.assert_allclose(d.shares, expected, atol=1e-15)
    assert d.bins == ((0.0, 9.0), (10.0, 19.0), (20.0, 40.0))


def test_the_level_fit_is_the_constrained_maximum_likelihood():
    m, stat = _hours("geometric")
    d = mechanism_distribution(m, stat, [20], resamples=20)
    q = m.channel_matrix()
    fitted = d.levels
    w = np.asarray(stat.counts) / stat.n
    # KKT on the simplex: the gradient Σ_y w_y Q[x, y]/(Qᵀf)_y is at most 1
    # (up to the stopping tolerance) and equals 1 where f_x > 0.
    gradient = (w / (fitted @ q)) @ q.T
    assert gradient.max() < 1 + 2e-3
    # and the likelihood is at least that of the plain EM of channel_mle.
    plain = channel_mle(q, stat.counts)
    used = w > 0
    assert (
        w[used] @ np.log((fitted @ q)[used])
        >= w[used] @ np.log((plain @ q)[used]) - 1e-9
    )


def test_identical_report_columns_are_merged_without_changing_the_fit():
    m, stat = _hours("piecewise")
    matrix = m.channel_matrix()
    merged = level_channel(m)
    assert isinstance(merged, HistogramChannel)
    # Piecewise cells that the same levels put in their band are one column.
    assert merged.channel.shape == (41, 81) and matrix.shape == (41, 129)
    np.testing.assert_allclose(merged.channel.sum(axis=1), 1.0, atol=1e-12)
    counts = np.asarray(stat.counts, dtype=float)
    assert merged.sufficient(counts).sum() == counts.sum() == stat.n
    full = HistogramChannel(matrix).fit(counts[None, :], stat.n)[0]
    fitted = merged.fit(merged.sufficient(counts)[None, :], stat.n)[0]
    np.testing.assert_allclose(fitted, full, atol=1e-8)


def test_a_channel_whose_columns_all_differ_is_kept_as_it_is():
    m, _ = _hours("geometric")
    channel = level_channel(m)
    assert isinstance(channel, HistogramChannel) and channel.groups is None
    np.testing.assert_array_equal(channel.channel, m.channel_matrix())


def test_shares_sum_to_one_and_are_non_negative_with_intervals_around_them():
    m, stat = _hours()
    d = mechanism_distribution(m, stat, [8, 16, 24, 32], resamples=50, seed=2)
    assert d.shares.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(d.shares >= 0)
    ci = d.confidence_interval(0.95)
    assert np.all(ci.low <= d.shares) and np.all(d.shares <= ci.high)
    assert np.all(ci.low >= 0) and np.all(ci.high <= 1)
    assert d.method == METHOD == "constrained maximum likelihood, bootstrap interval"


def test_median_and_its_interval_lie_within_the_answer_range():
    m, stat = _hours()
    d = mechanism_distribution(m, stat, [20], resamples=50, seed=2)
    interval = d.median_interval(0.95)
    assert 0 <= interval.low <= d.median <= interval.high <= 40
    assert d.median in m.input_values()


def test_the_same_seed_gives_the_same_intervals_and_another_seed_other_ones():
    m, stat = _hours()
    one = mechanism_distribution(m, stat, [20], resamples=30, seed=7)
    two = mechanism_distribution(m, stat, [20], resamples=30, seed=7)
    other = mechanism_distribution(m, stat, [20], resamples=30, seed=8)
    np.testing.assert_array_equal(one.replicates, two.replicates)
    assert one.to_dict() == two.to_dict()
    assert not np.array_equal(one.replicates, other.replicates)


@pytest.mark.parametrize(
    ("cuts", "message"),
    [
        ([10, 5], "strictly increasing"),
        ([10, 10], "strictly increasing"),
        ([-1, 10], "within the answer range"),
        ([10, 41], "within the answer range"),
        (list(range(1, 21)), "at most 20 bins"),
        ([float("nan")], "must be numbers"),
        ([10.2, 10.5], "holds no possible answer"),
    ],
)
def test_bad_cut_points_are_refused_with_the_reason(cuts, message):
    values = np.arange(41, dtype=float)
    with pytest.raises(ValueError, match=message):
        bin_index(values, cuts)


def test_range_ends_are_added_and_none_gives_one_bin_per_level():
    values = np.arange(5, dtype=float)
    index, edges = bin_index(values, [0, 2, 4])
    assert index.tolist() == [0, 0, 1, 1, 1] and edges.tolist() == [0, 2, 4]
    index, _ = bin_index(values, None)
    assert index.tolist() == [0, 1, 2, 3, 4]


def test_a_unary_scale_is_fitted_by_the_binomial_likelihood_and_simulated_exactly():
    m = ldp.build({"mechanism": "oue", "k": 5, "epsilon": 1.0})
    rng = np.random.default_rng(4)
    answers = rng.choice(5, 500, p=[0.1, 0.2, 0.4, 0.2, 0.1])
    stat = m.aggregate(m.randomize(answers, rng))
    channel = level_channel(m)
    assert isinstance(channel, UnaryChannel)
    d = mechanism_distribution(m, stat, None, resamples=40, seed=1)
    expected = binomial_mle(
        np.asarray(stat.counts), stat.n, m.p_star, m.q_star, steps=80
    )
    np.testing.assert_allclose(d.shares, expected, atol=1e-12)
    # simulated support counts have the mean n (q + (p − q) f_x)
    f = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    counts = channel.simulate(f, 1000, 4000, np.random.default_rng(0))
    p, q = channel.p, channel.q
    np.testing.assert_allclose(counts.mean(axis=0), 1000 * (q + (p - q) * f), rtol=0.01)


def test_hashing_oracles_and_two_output_channels_have_no_level_channel():
    olh = ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0})
    assert level_channel(olh) is None
    duchi = ldp.build({"mechanism": "duchi", **GRID})
    assert level_channel(duchi) is None


def test_too_few_resamples_or_mismatched_values_are_refused():
    channel = HistogramChannel(np.array([[0.75, 0.25], [0.25, 0.75]]))
    with pytest.raises(ValueError, match="at least 20"):
        binned_distribution(channel, [3, 2], 5, [0, 1], None, resamples=5)
    with pytest.raises(ValueError, match="levels"):
        binned_distribution(channel, [3, 2], 5, [0, 1, 2], None)


@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "ordinal", "k": 5, "epsilon": 3.0},
        {"mechanism": "grr", "k": 5, "epsilon": 8.0},
        {"mechanism": "oue", "k": 5, "epsilon": 8.0},
        {
            "mechanism": "geometric",
            "low": "0",
            "high": "10",
            "step": "1",
            "epsilon": 8.0,
        },
    ],
)
@pytest.mark.parametrize("n", [1, 3, 200])
def test_no_interval_has_zero_width_when_every_report_is_the_same(spec, n):
    m = ldp.build(spec)
    reports = m.randomize(np.full(n, m.k - 1), rng=np.random.default_rng(1))
    same = np.repeat(reports[:1], n, axis=0)
    d = mechanism_distribution(m, m.aggregate(same), None, resamples=40, seed=3)
    shares = d.confidence_interval(0.95)
    assert np.all(shares.high > shares.low)
    assert np.all(shares.low >= 0) and np.all(shares.high <= 1)
    median = d.median_interval(0.95)
    values = m.input_values()
    top = values[-1] if values is not None else m.k - 1
    assert 0 <= median.low < median.high <= top
    assert median.low <= d.median <= median.high


def test_the_median_interval_reaches_half_a_step_beyond_its_bootstrap_levels():
    assert grid_widened(np.array([0.0, 1.0, 2.0, 4.0]), 2.0, 2.0) == (1.5, 3.0)
    assert grid_widened(np.array([0.0, 1.0, 2.0]), 2.0, 2.0) == (1.5, 2.0)
    assert grid_widened(np.array([0.0, 1.0, 2.0]), 0.0, 1.0) == (0.0, 1.5)


def test_the_direct_floor_has_positive_width_at_zero_one_and_between():
    floor = direct_interval(np.array([0.0, 0.4, 1.0]), 5)
    assert np.all(floor.high > floor.low)
    assert floor.low[0] == 0.0 and floor.high[2] == 1.0
    assert floor.high[0] == pytest.approx(1 - 0.025 ** (1 / 5), rel=1e-12)
