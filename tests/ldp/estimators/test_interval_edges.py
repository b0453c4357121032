"""Intervals stay honest at the edges: never a point, never outside the range.

Identical reports, two reports, or counts beyond what any answer could give
used to produce intervals of zero width (``[0, 0]``, a piecewise mean
``[10.03, 10.03]`` outside 0-10); every estimator now keeps a positive width
and stays within the estimand's range.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ldp
from ldp.estimators.binned import binned_distribution
from ldp.estimators.frequency.formulas import confidence_bounds
from ldp.estimators.intervals import bounded_interval
from ldp.estimators.level_channels import HistogramChannel

GRID = {"low": "0", "high": "10", "step": "1", "epsilon": 1.0}
VALUED = [
    {"mechanism": "piecewise", **GRID},
    {"mechanism": "geometric", **GRID},
    {"mechanism": "gaussian", **GRID},
    {"mechanism": "duchi", **GRID},
    {"mechanism": "ordinal", "k": 5, "epsilon": 1.0},
]
CHOICE = [
    {"mechanism": "grr", "k": 4, "epsilon": 1.0},
    {"mechanism": "oue", "k": 4, "epsilon": 1.0},
    {"mechanism": "warner", "epsilon": 1.0},
]


def _identical_reports(mechanism, n, seed):
    rng = np.random.default_rng(seed)
    report = mechanism.randomize(np.array([mechanism.k - 1]), rng)[0]
    report = report.tolist() if hasattr(report, "tolist") else report
    return mechanism.aggregate([report] * n)


@pytest.mark.parametrize("spec", VALUED, ids=lambda s: s["mechanism"])
@pytest.mark.parametrize("n", [2, 3, 50])
def test_identical_reports_give_a_mean_interval_of_positive_width_within_range(spec, n):
    mechanism = ldp.build(spec)
    values = mechanism.input_values()
    for seed in range(5):
        mean = mechanism.estimate(_identical_reports(mechanism, n, seed)).mean()
        interval = mean.confidence_interval(0.95)
        assert values.min() <= interval.low < interval.high <= values.max()


@pytest.mark.parametrize("spec", [VALUED[0], VALUED[1], VALUED[4]], ids=str)
def test_identical_reports_give_share_intervals_of_positive_width_within_0_1(spec):
    mechanism = ldp.build(spec)
    estimate = mechanism.estimate(_identical_reports(mechanism, 5, 0))
    interval = estimate.confidence_interval(0.95)
    assert np.all(interval.low >= 0) and np.all(interval.high <= 1)
    assert np.all(interval.high > interval.low)


@pytest.mark.parametrize("spec", CHOICE, ids=lambda s: s["mechanism"])
@pytest.mark.parametrize("method", ["exact", "wilson", "wald"])
@pytest.mark.parametrize("n", [1, 2, 40])
def test_identical_choice_reports_never_give_a_point_interval(spec, method, n):
    mechanism = ldp.build(spec)
    estimate = mechanism.estimate(_identical_reports(mechanism, n, 1))
    interval = estimate.confidence_interval(0.95, method)
    assert np.all(interval.high > interval.low)
    if method != "wald":  # the textbook Wald interval is not clipped
        assert np.all(interval.low >= 0) and np.all(interval.high <= 1)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 500),
    share=st.floats(0, 1),
    p=st.floats(0.55, 0.95),
    method=st.sampled_from(["exact", "wilson", "wald"]),
)
def test_share_bounds_have_positive_width_and_stay_in_0_1_for_any_count(
    n, share, p, method
):
    count = np.array([round(share * n)])
    low, high = confidence_bounds(
        count, n, np.array([p]), np.array([1 - p]), 0.95, method
    )
    assert low[0] < high[0]
    if method != "wald":
        assert low[0] >= 0 and high[0] <= 1


@settings(max_examples=200, deadline=None)
@given(
    center=st.floats(-50, 50),
    half=st.floats(1e-6, 20),
    low=st.floats(-10, 0),
    width=st.floats(1e-3, 10),
    truth=st.floats(0, 1),
)
@example(center=1.0, half=1.0, low=-3.73522000177708e-258, width=1.0, truth=0.0)
def test_a_bounded_interval_covers_whatever_the_unclipped_one_covered(
    center, half, low, width, truth
):
    high = low + width
    theta = min(max(low + truth * width, low), high)
    interval = bounded_interval(center, half, low, high)
    assert low <= interval.low < interval.high <= high
    # Covered up to rounding: with a truth a denormal away from the range's
    # end, |c − θ| rounds to h although θ lies just outside c ± h.
    rounding = 1e-12 * (abs(center) + half + abs(low) + abs(high))
    if abs(center - theta) <= half:
        assert interval.low - rounding <= theta <= interval.high + rounding


def test_the_binned_distribution_refuses_duchi_reports():
    mechanism = ldp.build({"mechanism": "duchi", **GRID})
    stat = mechanism.aggregate([0, 1, 1, 0, 1])
    channel = HistogramChannel(mechanism.channel_matrix())
    with pytest.raises(ValueError, match=r"not identifiable.*use the mean"):
        k = mechanism.k
        binned_distribution(
            channel,
            stat.counts,
            stat.n,
            mechanism.input_values(),
            None,
            debiased=np.zeros(k),
            covariance=np.zeros((k, k)),
        )
