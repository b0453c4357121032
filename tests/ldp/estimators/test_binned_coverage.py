"""Coverage of the binned distribution's bootstrap intervals (``statistical``).

The hours case: answers 0–40 in whole hours, the geometric
mechanism at ε = 1, n = 500, a skewed truth ``f_x ∝ exp(−x/8)`` and the
default five bins.  Each of 200 simulated surveys is analysed exactly as
``ldp.binned_distribution`` does (EM fit, B parametric resamples through the
channel, EM refits, percentile intervals); the fits of all surveys run as one
stacked array (each row's EM is independent of the others), which is what
keeps the test near a minute.  With 200 surveys the Monte Carlo standard
error of a 0.95 coverage is sqrt(0.95 · 0.05 / 200) = 0.015.
"""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.estimators.binned import (
    METHOD,
    BinnedDistribution,
    bin_index,
    binned_distribution,
    level_median,
)
from ldp.estimators.level_channels import HistogramChannel

pytestmark = pytest.mark.statistical

REPLICATIONS = 200
RESAMPLES = 100
N = 500
CUTS = [8, 16, 24, 32]  # the default bins of 0–40 (surveys.analysis.results.bins)


def _setting():
    grid = {"low": "0", "high": "40", "step": "1", "epsilon": 1.0}
    mechanism = ldp.build({"mechanism": "geometric", **grid})
    values = mechanism.input_values()
    truth = np.exp(-values / 8.0)
    return mechanism, values, truth / truth.sum()


def _distribution(fitted, refits, values, index) -> BinnedDistribution:
    member = np.zeros((values.size, index.max() + 1))
    member[np.arange(values.size), index] = 1.0
    return BinnedDistribution(
        bins=(),
        shares=fitted @ member,
        n=N,
        method=METHOD,
        median=float(level_median(fitted, values)[0]),
        levels=fitted,
        replicates=refits @ member,
        median_replicates=level_median(refits, values),
        edges=np.array([]),
        values=values,
    )


def test_the_stacked_analysis_is_the_binned_distribution_of_each_survey():
    mechanism, values, truth = _setting()
    channel = HistogramChannel(mechanism.channel_matrix())
    rng = np.random.default_rng(11)
    stat = mechanism.aggregate(mechanism.randomize(rng.choice(41, N, p=truth), rng))
    direct = binned_distribution(
        channel, stat.counts, N, values, CUTS, resamples=30, seed=5
    )
    fitted = channel.fit(np.asarray(stat.counts, dtype=float)[None, :], N)[0]
    simulated = channel.simulate(fitted, N, 30, np.random.default_rng(5))
    index, _ = bin_index(values, CUTS)
    stacked = _distribution(fitted, channel.fit(simulated, N), values, index)
    np.testing.assert_allclose(stacked.shares, direct.shares, atol=1e-9)
    np.testing.assert_allclose(
        stacked.confidence_interval(0.95).high,
        direct.confidence_interval(0.95).high,
        atol=1e-6,
    )


def test_95_percent_bin_intervals_cover_the_true_shares_in_the_hours_case():
    mechanism, values, truth = _setting()
    channel = HistogramChannel(mechanism.channel_matrix())
    index, _ = bin_index(values, CUTS)
    true_bins = np.bincount(index, weights=truth)
    true_median = level_median(truth, values)[0]
    rng = np.random.default_rng(2026)
    counts = np.array(
        [
            mechanism.aggregate(
                mechanism.randomize(rng.choice(41, N, p=truth), rng)
            ).counts
            for _ in range(REPLICATIONS)
        ],
        dtype=float,
    )
    fitted = channel.fit(counts, N)
    simulated = np.vstack([channel.simulate(f, N, RESAMPLES, rng) for f in fitted])
    refits = channel.fit(simulated, N).reshape(REPLICATIONS, RESAMPLES, -1)
    covered = np.zeros(true_bins.size)
    widths = np.zeros(true_bins.size)
    median_covered = 0
    for r in range(REPLICATIONS):
        d = _distribution(fitted[r], refits[r], values, index)
        interval = d.confidence_interval(0.95)
        covered += (interval.low <= true_bins) & (true_bins <= interval.high)
        widths += interval.high - interval.low
        median = d.median_interval(0.95)
        median_covered += median.low <= true_median <= median.high
    coverage = covered / REPLICATIONS
    print(
        f"\nbinned coverage (geometric, 0-40, eps=1, n={N}, {REPLICATIONS} surveys, "
        f"B={RESAMPLES}): true shares {np.round(true_bins, 3).tolist()}, "
        f"coverage {np.round(coverage, 3).tolist()}, mean widths "
        f"{np.round(widths / REPLICATIONS, 3).tolist()}, median coverage "
        f"{median_covered / REPLICATIONS:.3f}"
    )
    # Valid: no bin under-covers (the intervals are conservative here, see
    # docs/maths.md, section 11, for why and for the measured figures).
    assert np.all(coverage >= 0.90), coverage
    assert median_covered / REPLICATIONS >= 0.90
