"""FrequencyEstimate: formulas, intervals, consistency, serialisation."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.counts import SupportCounts


def coin_estimate(yes: int, n: int) -> ldp.FrequencyEstimate:
    mechanism = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
        }
    )
    stat = SupportCounts(n, np.array([n - yes, yes]), mechanism.spec)
    return mechanism.estimate(stat)


def test_estimate_debiases_the_yes_share():
    # λ = a + t π with a = 1/4, t = 1/2: 40% yes reports mean π̂ = 0.3.
    est = coin_estimate(400, 1000)
    assert est.estimate[1] == pytest.approx(0.3)
    assert est.estimate[0] == pytest.approx(0.7)
    assert est.standard_error[1] == pytest.approx(np.sqrt(0.4 * 0.6 / 1000) / 0.5)


def test_exact_interval_maps_clopper_pearson_through_the_design():
    est = coin_estimate(400, 1000)
    interval = est.confidence_interval(level=0.95, method="exact")
    low = stats.beta.ppf(0.025, 400, 601)
    high = stats.beta.ppf(0.975, 401, 600)
    assert interval.low[1] == pytest.approx((low - 0.25) / 0.5)
    assert interval.high[1] == pytest.approx((high - 0.25) / 0.5)


def test_exact_interval_is_clipped_to_zero_and_one():
    interval = coin_estimate(0, 50).confidence_interval()
    assert interval.low[1] == 0.0
    assert interval.high[0] == 1.0
    assert np.all((interval.low >= 0) & (interval.high <= 1))


def test_wilson_interval_is_the_wilson_score_interval_for_lambda_mapped():
    est = coin_estimate(400, 1000)
    interval = est.confidence_interval(method="wilson")
    z = stats.norm.ppf(0.975)
    centre = (400 + z**2 / 2) / (1000 + z**2)
    half = z / (1000 + z**2) * np.sqrt(400 * 600 / 1000 + z**2 / 4)
    assert interval.low[1] == pytest.approx((centre - half - 0.25) / 0.5)


def test_wald_interval_is_estimate_plus_minus_z_se_unclipped():
    est = coin_estimate(30, 100)
    interval = est.confidence_interval(method="wald")
    z = stats.norm.ppf(0.975)
    assert interval.low[1] == pytest.approx(est.estimate[1] - z * est.standard_error[1])
    assert interval.low[1] < 0


def test_wald_interval_uses_at_least_the_smallest_possible_report_variance():
    # 2 yes reports of 100: λ̂(1 − λ̂) = 0.0196 is below q(1 − q) = 3/16, the
    # least a yes report's variance can be when λ lies in [1/4, 3/4].
    est = coin_estimate(2, 100)
    interval = est.confidence_interval(method="wald")
    z = stats.norm.ppf(0.975)
    floor = np.sqrt(3 / 16 / 100) / 0.5
    assert interval.low[1] == pytest.approx(est.estimate[1] - z * floor)


def test_simultaneous_intervals_use_bonferroni_and_are_wider():
    mechanism = ldp.build({"mechanism": "grr", "k": 5, "epsilon": 1.0})
    est = mechanism.estimate(
        SupportCounts(500, np.array([150, 100, 90, 80, 80]), mechanism.spec)
    )
    single = est.confidence_interval(level=0.95, method="wald")
    joint = est.confidence_interval(level=0.95, method="wald", simultaneous=True)
    z = stats.norm.ppf(1 - 0.05 / 5 / 2)
    assert joint.high == pytest.approx(est.estimate + z * est.standard_error)
    assert np.all(joint.high > single.high)


def test_confidence_interval_rejects_unknown_method():
    with pytest.raises(ValueError, match="method is 'bayes'"):
        coin_estimate(400, 1000).confidence_interval(method="bayes")


@pytest.mark.parametrize("level", [0, 1, 1.5])
def test_confidence_interval_rejects_level_outside_zero_one(level):
    with pytest.raises(ValueError, match="level"):
        coin_estimate(400, 1000).confidence_interval(level=level)


def test_estimate_rejects_zero_reports():
    mechanism = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    with pytest.raises(ValueError, match="zero reports"):
        mechanism.estimate(mechanism.aggregate([]))


def test_to_dict_is_json_serialisable():
    data = json.loads(json.dumps(coin_estimate(400, 1000).to_dict()))
    assert data["n"] == 1000
    assert data["mechanism"] == "forced_response"
    assert data["counts"] == [600, 400]


@pytest.mark.parametrize("method", ["norm-sub", "mle"])
def test_consistent_estimate_is_on_the_simplex(mechanism, rng, method):
    answers = np.zeros(60, dtype=int)
    est = mechanism.estimate(mechanism.aggregate(mechanism.randomize(answers, rng)))
    consistent = est.consistent(method)
    assert consistent.shape == (mechanism.k,)
    assert np.all(consistent >= 0)
    assert consistent.sum() == pytest.approx(1)


def test_consistent_rejects_unknown_method():
    with pytest.raises(ValueError, match="method is 'clip'"):
        coin_estimate(400, 1000).consistent("clip")
