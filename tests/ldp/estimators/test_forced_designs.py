"""Forced response with any design: the estimator reads p and q from the channel.

``λ = P(report yes) = a + t π`` for a design ``(t, a, b)``, so the unbiased
share is ``π̂ = (ȳ − a)/t`` (Fox & Tracy 1986; Greenberg et al. 1969 for the
unrelated-question design with ``a = (1 − t)π_U``).  The estimator takes
``p* = P(yes | yes) = t + a`` and ``q* = P(yes | no) = a`` from the compiled
weights, never from ε: two designs with the same ε debias differently.
"""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.mechanisms.binary import unrelated_question_spec

CUSTOM = {
    "mechanism": "forced_response",
    "design": {"truthful": "7/10", "forced_yes": "1/5", "forced_no": "1/10"},
}
UNRELATED = unrelated_question_spec("3/5", "1/4")


def _simulate(spec, share: float, n: int, seed: int):
    mechanism = ldp.build(spec)
    rng = np.random.default_rng(seed)
    answers = (rng.random(n) < share).astype(int)
    reports = mechanism.randomize(answers, rng)
    return mechanism, answers, mechanism.estimate(mechanism.aggregate(reports))


def test_estimator_takes_p_and_q_from_the_design_not_from_epsilon():
    custom = ldp.build(CUSTOM)
    # p* = P(yes | yes) = t + a = 9/10, q* = P(yes | no) = a = 1/5.
    assert custom.p_star[1] == pytest.approx(0.9)
    assert custom.q_star[1] == pytest.approx(0.2)
    # The symmetric design with the same ε = ln 8 has a = b = 1/9: another channel.
    symmetric = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": "7/9", "forced_yes": "1/9", "forced_no": "1/9"},
        }
    )
    assert symmetric.epsilon_exact == custom.epsilon_exact
    assert symmetric.q_star[1] == pytest.approx(1 / 9)
    # 47% yes reports: (0.47 − 1/5)/(7/10) under the custom design.
    counts = custom.aggregate(np.array([1] * 47 + [0] * 53))
    assert custom.estimate(counts).estimate[1] == pytest.approx((0.47 - 0.2) / 0.7)


@pytest.mark.parametrize(("name", "spec"), [("custom", CUSTOM), ("uq", UNRELATED)])
def test_seeded_simulation_recovers_the_true_share_within_its_interval(name, spec):
    _, answers, estimate = _simulate(spec, share=0.3, n=20_000, seed=16)
    truth = answers.mean()
    interval = estimate.confidence_interval(level=0.95)
    assert interval.low[1] <= truth <= interval.high[1]
    assert estimate.estimate[1] == pytest.approx(truth, abs=0.03)


@pytest.mark.parametrize(("name", "spec"), [("custom", CUSTOM), ("uq", UNRELATED)])
def test_intervals_cover_the_true_share_at_about_their_level(name, spec):
    # 400 seeded surveys of n = 2,000 at a true share of 0.3: the 95% intervals
    # should cover 0.3 in about 95% of them (binomial sd of the rate ≈ 1.1%).
    covered = 0
    for seed in range(400):
        _, _, estimate = _simulate(spec, share=0.3, n=2_000, seed=seed)
        interval = estimate.confidence_interval(level=0.95)
        covered += interval.low[1] <= 0.3 <= interval.high[1]
    assert 0.92 <= covered / 400 <= 0.98
