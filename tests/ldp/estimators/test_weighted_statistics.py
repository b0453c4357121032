"""Seeded simulations of weighted shares (``statistical`` tier).

A sample over-represents some groups of a known population; post-stratified
or raked weights restore the population margins, and the weighted debiased
share must be unbiased for the population share with linearized Wald
intervals covering at 95 %.  1,000 surveys of n = 2,000 each (Monte Carlo SE
of a 0.95 coverage: 0.0069).
"""

from __future__ import annotations

import numpy as np
import pytest

import ldp

REPLICATIONS = 1000
N = 2000

# Population cells (sex, age): population share, sampling propensity
# (multiplicative in sex and age, the model raking assumes) and the
# distribution of the sensitive answer over k = 3 options in that cell.
CELLS = {
    ("f", "young"): (0.20, 2.0 * 1.5, [0.50, 0.30, 0.20]),
    ("f", "old"): (0.30, 2.0 * 0.6, [0.20, 0.30, 0.50]),
    ("m", "young"): (0.25, 1.0 * 1.5, [0.40, 0.40, 0.20]),
    ("m", "old"): (0.25, 1.0 * 0.6, [0.10, 0.30, 0.60]),
}


def _population_shares() -> np.ndarray:
    return sum(share * np.array(f) for share, _, f in CELLS.values())


def _sample(rng: np.random.Generator, n: int = N) -> tuple[list, np.ndarray]:
    keys = list(CELLS)
    selection = np.array([CELLS[k][0] * CELLS[k][1] for k in keys])
    cell = rng.choice(len(keys), n, p=selection / selection.sum())
    answers = np.empty(n, dtype=np.int64)
    for index, key in enumerate(keys):
        mask = cell == index
        answers[mask] = rng.choice(3, mask.sum(), p=CELLS[key][2])
    return [keys[i] for i in cell], answers


@pytest.mark.statistical
@pytest.mark.parametrize("calibration", ["post-stratification", "raking"])
@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "grr", "k": 3, "epsilon": 1.0},
        {"mechanism": "oue", "k": 3, "epsilon": 1.0},
        {"mechanism": "olh", "k": 3, "epsilon": 2.0},
    ],
    ids=["grr", "oue", "olh"],
)
def test_weighted_shares_are_unbiased_and_cover_the_population_share(spec, calibration):
    mechanism = ldp.build(spec)
    truth = _population_shares()
    rng = np.random.default_rng(20261125)
    estimates = np.empty((REPLICATIONS, 3))
    covered = np.zeros((REPLICATIONS, 3), dtype=bool)
    deffs = np.empty(REPLICATIONS)
    for r in range(REPLICATIONS):
        cells, answers = _sample(rng)
        if calibration == "post-stratification":
            weights = ldp.post_stratify(
                [f"{s}/{a}" for s, a in cells],
                {f"{s}/{a}": CELLS[(s, a)][0] for s, a in CELLS},
            )
        else:
            weights = ldp.rake(
                {"sex": [s for s, _ in cells], "age": [a for _, a in cells]},
                {"sex": {"f": 0.5, "m": 0.5}, "age": {"young": 0.45, "old": 0.55}},
            )
        est = ldp.weighted_estimate(
            mechanism, mechanism.randomize(answers, rng), weights.weights
        )
        ci = est.confidence_interval(0.95)
        estimates[r] = est.estimate
        covered[r] = (ci.low <= truth) & (truth <= ci.high)
        deffs[r] = est.design_effect
    coverage = covered.mean(axis=0)
    assert np.all((coverage >= 0.93) & (coverage <= 0.97)), coverage
    bias = estimates.mean(axis=0) - truth
    monte_carlo_se = estimates.std(axis=0) / np.sqrt(REPLICATIONS)
    assert np.all(np.abs(bias) <= 4 * monte_carlo_se), (bias, monte_carlo_se)
    assert deffs.min() > 1.05  # the weights are unequal: Kish's deff shows it


@pytest.mark.statistical
def test_unweighted_shares_of_the_same_sample_are_biased():
    """The check above has power: without weights the estimate misses."""
    mechanism = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    truth = _population_shares()
    rng = np.random.default_rng(20261126)
    estimates = np.empty((200, 3))
    for r in range(200):
        _, answers = _sample(rng)
        reports = mechanism.randomize(answers, rng)
        estimates[r] = mechanism.estimate(mechanism.aggregate(reports)).estimate
    bias = estimates.mean(axis=0) - truth
    monte_carlo_se = estimates.std(axis=0) / np.sqrt(200)
    assert np.max(np.abs(bias) / monte_carlo_se) > 10


@pytest.mark.statistical
def test_weighted_shares_converge_to_the_weighted_shares_of_the_true_answers():
    mechanism = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    rng = np.random.default_rng(11)
    gaps = []
    for n in (2_000, 20_000, 200_000):
        cells, answers = _sample(rng, n)
        w = ldp.rake(
            {"sex": [s for s, _ in cells], "age": [a for _, a in cells]},
            {"sex": {"f": 0.5, "m": 0.5}, "age": {"young": 0.45, "old": 0.55}},
        ).weights
        est = ldp.weighted_estimate(mechanism, mechanism.randomize(answers, rng), w)
        # The same weighted ratio and linearized SE on the true answers.
        onehot = answers[:, None] == np.arange(3)
        true_share = w @ onehot / w.sum()
        z = w[:, None] * (onehot - true_share) / w.sum()
        true_se = np.sqrt(n / (n - 1) * np.sum(z**2, axis=0))
        gap = np.abs(est.estimate - true_share)
        allowed = 4 * np.sqrt(est.standard_error**2 - true_se**2)
        assert np.all(gap <= allowed), (n, gap, allowed)
        gaps.append(gap.max())
    assert gaps[2] < gaps[0] / 3, gaps


CELL_HOURS = {("f", "young"): 12, ("f", "old"): 20, ("m", "young"): 8, ("m", "old"): 28}
"""Mean of Binomial(40, h/40) hours in each cell."""


@pytest.mark.statistical
def test_weighted_score_mean_is_unbiased_and_covers_the_population_mean():
    mechanism = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "40", "step": "1", "epsilon": 2}
    )
    truth = sum(CELLS[key][0] * hours for key, hours in CELL_HOURS.items())
    rng = np.random.default_rng(20261127)
    estimates = np.empty(REPLICATIONS)
    covered = np.zeros(REPLICATIONS, dtype=bool)
    for r in range(REPLICATIONS):
        cells, _ = _sample(rng)
        hours = rng.binomial(40, np.array([CELL_HOURS[c] for c in cells]) / 40)
        weights = ldp.rake(
            {"sex": [s for s, _ in cells], "age": [a for _, a in cells]},
            {"sex": {"f": 0.5, "m": 0.5}, "age": {"young": 0.45, "old": 0.55}},
        )
        est = ldp.weighted_mean(
            mechanism, mechanism.randomize(hours, rng), weights.weights
        )
        ci = est.confidence_interval(0.95)
        estimates[r] = est.estimate
        covered[r] = ci.low <= truth <= ci.high
    assert 0.93 <= covered.mean() <= 0.97, covered.mean()
    assert abs(estimates.mean() - truth) <= 4 * estimates.std() / np.sqrt(REPLICATIONS)
