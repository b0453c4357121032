"""Coverage of the binned distribution's Wald intervals (``statistical``).

Answers 0–40 in steps of 5, the geometric mechanism at ε = 2, n = 50,000,
a truth ``f_x ∝ exp(−x/20)`` and bins 0–5, 10–15, 20–40 (true shares 44.0%,
26.7%, 29.3%).  Each of 200 simulated surveys is a tally drawn from the
report histogram's multinomial law (what aggregating n reports gives) and
analysed by ``ldp.mechanism_distribution``.  With 200 surveys the Monte Carlo
standard error of a 0.95 coverage is sqrt(0.95 · 0.05 / 200) = 0.015, so the
band [0.92, 0.98] is two of them either side.  The median lies on a grid of
steps of 5 where the cumulative share jumps from 0.44 to 0.59: its Woodruff
interval, widened by half a step, covers it whenever the cumulative share's
interval stays within that jump, so it is conservative (docs/maths.md,
section 11).
"""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.counts import SupportCounts
from ldp.estimators.binned import bin_index, level_median, mechanism_distribution

pytestmark = [pytest.mark.statistical, pytest.mark.slow]

REPLICATIONS = 200
N = 50_000
CUTS = [10.0, 20.0]


def test_95_percent_bin_intervals_cover_the_true_shares_at_their_level():
    grid = {"low": "0", "high": "40", "step": "5", "epsilon": 2.0}
    mechanism = ldp.build({"mechanism": "geometric", **grid})
    values = mechanism.input_values()
    truth = np.exp(-values / 20.0)
    truth /= truth.sum()
    index, _ = bin_index(values, CUTS)
    true_bins = np.bincount(index, weights=truth)
    true_median = level_median(truth, values)[0]
    cells = truth @ mechanism.channel_matrix()
    rng = np.random.default_rng(2026)
    covered = np.zeros(true_bins.size)
    widths = np.zeros(true_bins.size)
    median_covered = 0
    for _ in range(REPLICATIONS):
        counts = rng.multinomial(N, cells / cells.sum())
        d = mechanism_distribution(
            mechanism, SupportCounts(N, counts, mechanism.spec), CUTS
        )
        assert d is not None
        interval = d.confidence_interval(0.95)
        covered += (interval.low <= true_bins) & (true_bins <= interval.high)
        widths += interval.high - interval.low
        median = d.median_interval(0.95)
        median_covered += median.low <= true_median <= median.high
    coverage = covered / REPLICATIONS
    print(
        f"\nbinned coverage (geometric, 0-40 step 5, eps=2, n={N}, "
        f"{REPLICATIONS} surveys): true shares {np.round(true_bins, 3).tolist()}, "
        f"coverage {np.round(coverage, 3).tolist()}, mean widths "
        f"{np.round(widths / REPLICATIONS, 3).tolist()}, median coverage "
        f"{median_covered / REPLICATIONS:.3f}"
    )
    assert np.all((coverage >= 0.92) & (coverage <= 0.98)), coverage
    assert median_covered / REPLICATIONS >= 0.92
