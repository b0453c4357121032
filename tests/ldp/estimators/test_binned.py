"""Binned distributions: the EM fit summed into bins, with Wald and Woodruff
intervals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ldp
from ldp.counts import SupportCounts
from ldp.estimators.binned import (
    METHOD,
    bin_index,
    binned_distribution,
    direct_interval,
    grid_widened,
    level_quantile,
    mechanism_distribution,
)
from ldp.estimators.channel.algebra import channel_mle
from ldp.estimators.consistency import binomial_mle
from ldp.estimators.intervals import critical_value
from ldp.estimators.level_channels import (
    HistogramChannel,
    UnaryChannel,
    debiased_levels,
    level_channel,
)

GRID = {"low": "0", "high": "40", "step": "1", "epsilon": 1.0}


def _hours(mechanism: str = "piecewise", n: int = 500, seed: int = 3):
    m = ldp.build({"mechanism": mechanism, **GRID})
    rng = np.random.default_rng(seed)
    truth = np.exp(-np.arange(41) / 8.0)
    answers = rng.choice(41, size=n, p=truth / truth.sum())
    return m, m.aggregate(m.randomize(answers, rng))


def _tally(mechanism: str = "geometric", n: int = 50_000, seed: int = 3):
    """A tally of ``n`` reports on 0–40 in steps of 5 at ε = 2, drawn as the
    report histogram's multinomial law (what aggregating ``n`` reports gives)."""
    m = ldp.build({"mechanism": mechanism, **GRID, "step": "5", "epsilon": 2.0})
    truth = np.exp(-m.input_values() / 20.0)
    cells = (truth / truth.sum()) @ m.channel_matrix()
    counts = np.random.default_rng(seed).multinomial(n, cells / cells.sum())
    return m, SupportCounts(n, counts, m.spec)


def test_bin_shares_are_the_em_fit_summed_over_each_bins_levels():
    m, stat = _hours()
    d = mechanism_distribution(m, stat, [0, 10, 20, 40])
    assert d is not None
    edges = [0, 10, 20, 41]
    expected = [d.levels[a:b].sum() for a, b in itertools.pairwise(edges)]
    np.testing.assert_allclose(d.shares, expected, atol=1e-15)
    assert d.bins == ((0.0, 9.0), (10.0, 19.0), (20.0, 40.0))


def test_the_level_fit_is_the_constrained_maximum_likelihood():
    m, stat = _hours("geometric")
    d = mechanism_distribution(m, stat, [20])
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
    d = mechanism_distribution(m, stat, [8, 16, 24, 32])
    assert d.shares.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(d.shares >= 0)
    ci = d.confidence_interval(0.95)
    assert np.all(ci.low <= d.shares) and np.all(d.shares <= ci.high)
    assert np.all(ci.low >= 0) and np.all(ci.high <= 1)
    assert d.method == METHOD
    assert METHOD == "constrained maximum likelihood, Wald and Woodruff intervals"


def test_median_and_its_interval_lie_within_the_answer_range():
    m, stat = _hours()
    d = mechanism_distribution(m, stat, [20])
    interval = d.median_interval(0.95)
    assert 0 <= interval.low <= d.median <= interval.high <= 40
    assert d.median in m.input_values()


@pytest.mark.parametrize("mechanism", ["geometric", "piecewise"])
def test_bin_intervals_are_wald_intervals_of_the_debiased_bin_shares(mechanism):
    m, stat = _tally(mechanism)
    d = mechanism_distribution(m, stat, [10, 20, 30])
    est = m.estimate(stat)
    member = d.member
    centre = est.estimate @ member
    se = np.sqrt(np.diag(member.T @ est.covariance @ member))
    interval = d.confidence_interval(0.95)
    inside = (centre - 1.96 * se > 0.01) & (centre + 1.96 * se < 0.99)
    inside &= (interval.low <= d.shares) & (d.shares <= interval.high)
    assert inside.sum() == 4
    z = critical_value(0.95)
    np.testing.assert_allclose(
        interval.low[inside], np.minimum(centre - z * se, d.shares)[inside]
    )
    np.testing.assert_allclose(
        interval.high[inside], np.maximum(centre + z * se, d.shares)[inside]
    )


def test_the_median_interval_inverts_woodruffs_interval_for_the_cumulative_share():
    m, stat = _tally()
    d = mechanism_distribution(m, stat, [20])
    values = m.input_values()
    below = (values <= d.median).astype(float)
    s = np.sqrt(below @ m.estimate(stat).covariance @ below)
    z = critical_value(0.95)
    low = level_quantile(d.levels, values, 0.5 - z * s)[0]
    high = level_quantile(d.levels, values, 0.5 + z * s)[0]
    interval = d.median_interval(0.95)
    assert (interval.low, interval.high) == grid_widened(values, low, high)
    assert d.quantile(0.5) == d.median


def test_a_quantile_interval_holds_its_quantile_and_refuses_positions_outside_0_1():
    m, stat = _tally()
    d = mechanism_distribution(m, stat, [20])
    for p in (0.1, 0.25, 0.75, 0.9):
        interval = d.quantile_interval(p, 0.95)
        assert interval.low <= d.quantile(p) <= interval.high
        assert interval.low < interval.high
        assert interval.high - interval.low < 40
    assert d.quantile(0.25) <= d.median <= d.quantile(0.75)
    with pytest.raises(ValueError, match="p must lie"):
        d.quantile_interval(1.0)


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


def test_a_unary_scale_is_fitted_by_the_binomial_likelihood():
    m = ldp.build({"mechanism": "oue", "k": 5, "epsilon": 1.0})
    rng = np.random.default_rng(4)
    answers = rng.choice(5, 500, p=[0.1, 0.2, 0.4, 0.2, 0.1])
    stat = m.aggregate(m.randomize(answers, rng))
    channel = level_channel(m)
    assert isinstance(channel, UnaryChannel)
    d = mechanism_distribution(m, stat, None)
    expected = binomial_mle(
        np.asarray(stat.counts), stat.n, m.p_star, m.q_star, steps=80
    )
    np.testing.assert_allclose(d.shares, expected, atol=1e-12)


def test_the_unary_covariance_is_the_simulated_covariance_of_the_debiased_shares():
    m = ldp.build({"mechanism": "oue", "k": 3, "epsilon": 4.0})
    f = np.array([0.4, 0.4, 0.2])
    n, surveys = 400, 4000
    rng = np.random.default_rng(0)
    p, q = float(m.p_star[0]), float(m.q_star[0])

    def support(size: int, reports: int) -> np.ndarray:
        answers = rng.multinomial(reports, f, size=size)
        return rng.binomial(answers, p) + rng.binomial(reports - answers, q)

    simulated = np.cov(((support(surveys, n) / n - q) / (p - q)).T)
    # The plug-in at 250 times the reports, scaled to n: the formula near f.
    stat = SupportCounts(250 * n, support(1, 250 * n)[0], m.spec)
    estimate, covariance = debiased_levels(m, stat)
    np.testing.assert_allclose(estimate, m.estimate(stat).estimate)
    np.testing.assert_allclose(covariance * 250, simulated, rtol=0.1, atol=6e-5)
    assert np.all(covariance[~np.eye(3, dtype=bool)] < 0)


def test_hashing_oracles_and_two_output_channels_have_no_level_channel():
    olh = ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0})
    assert level_channel(olh) is None
    duchi = ldp.build({"mechanism": "duchi", **GRID})
    assert level_channel(duchi) is None


def test_mismatched_values_or_debiased_shares_are_refused():
    channel = HistogramChannel(np.array([[0.75, 0.25], [0.25, 0.75]]))
    two = {"debiased": np.zeros(2), "covariance": np.zeros((2, 2))}
    with pytest.raises(ValueError, match="levels"):
        binned_distribution(channel, [3, 2], 5, [0, 1, 2], None, **two)
    with pytest.raises(ValueError, match="covariance of shape"):
        binned_distribution(
            channel, [3, 2], 5, [0, 1], None, debiased=np.zeros(2), covariance=[1.0]
        )


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
@pytest.mark.parametrize("n", [2, 3, 200])
def test_no_interval_has_zero_width_when_every_report_is_the_same(spec, n):
    m = ldp.build(spec)
    reports = m.randomize(np.full(n, m.k - 1), rng=np.random.default_rng(1))
    same = np.repeat(reports[:1], n, axis=0)
    d = mechanism_distribution(m, m.aggregate(same), None)
    shares = d.confidence_interval(0.95)
    assert np.all(shares.high > shares.low)
    assert np.all(shares.low >= 0) and np.all(shares.high <= 1)
    median = d.median_interval(0.95)
    values = m.input_values()
    top = values[-1] if values is not None else m.k - 1
    assert 0 <= median.low < median.high <= top
    assert median.low <= d.median <= median.high


def test_the_median_interval_reaches_half_a_step_beyond_its_woodruff_levels():
    assert grid_widened(np.array([0.0, 1.0, 2.0, 4.0]), 2.0, 2.0) == (1.5, 3.0)
    assert grid_widened(np.array([0.0, 1.0, 2.0]), 2.0, 2.0) == (1.5, 2.0)
    assert grid_widened(np.array([0.0, 1.0, 2.0]), 0.0, 1.0) == (0.0, 1.5)


def test_the_direct_floor_has_positive_width_at_zero_one_and_between():
    floor = direct_interval(np.array([0.0, 0.4, 1.0]), 5)
    assert np.all(floor.high > floor.low)
    assert floor.low[0] == 0.0 and floor.high[2] == 1.0
    assert floor.high[0] == pytest.approx(1 - 0.025 ** (1 / 5), rel=1e-12)
