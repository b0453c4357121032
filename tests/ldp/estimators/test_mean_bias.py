"""A biased score mean widens its interval by the bias bound."""

from __future__ import annotations

from ldp.estimators.mean import MeanEstimate


def test_interval_widens_by_the_bias_bound_on_both_sides():
    exact = MeanEstimate(100, 5.0, 0.0, "piecewise", 1e-9, bias_bound=0.0)
    biased = MeanEstimate(100, 5.0, 0.0, "piecewise", 1e-9, bias_bound=5.0)
    assert (exact.confidence_interval().low, exact.confidence_interval().high) == (
        5.0,
        5.0,
    )
    interval = biased.confidence_interval()
    assert (interval.low, interval.high) == (0.0, 10.0)


def test_interval_with_a_bias_bound_still_covers_a_truth_at_the_range_end():
    # Scores all equal (a channel with identical rows): the truth 1 is covered.
    biased = MeanEstimate(1000, 5.0, 0.0, "piecewise", 1e-9, bias_bound=5.0)
    interval = biased.confidence_interval(0.95, "normal")
    assert interval.low <= 1.0 <= interval.high
