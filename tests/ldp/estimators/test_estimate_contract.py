"""The common estimate interface, run against every mechanism family.

``Mechanism.estimate()`` returns an ``ldp.Estimate`` for frequency oracles,
multi-select, ordinal and numeric finite channels alike (Duchi included, whose
levels are not identifiable); callers never need the result's type.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

import ldp
from ldp.counts import SupportCounts, counts_layout
from tests.ldp.conftest import SPECS
from tests.ldp.mechanisms.numeric_specs import FINITE_SPECS

EVERY_SPEC: dict[str, dict[str, Any]] = {
    **SPECS,
    "multi_rr": {"mechanism": "multi_rr", "k": 4, "epsilon": 2.0},
    "padding_sampling": {
        "mechanism": "padding_sampling",
        "k": 5,
        "ell": 2,
        "epsilon": 1.0,
    },
    **FINITE_SPECS,
}
N = 300


def _answers(mechanism: ldp.Mechanism, rng: np.random.Generator) -> Any:
    if mechanism.name in ("multi_rr", "padding_sampling"):
        most = getattr(mechanism, "ell", mechanism.k)
        return [
            sorted(rng.choice(mechanism.k, int(rng.integers(0, most + 1)), False))
            for _ in range(N)
        ]
    return rng.integers(0, mechanism.k, N)


@pytest.fixture(params=sorted(EVERY_SPEC))
def family(request: pytest.FixtureRequest) -> ldp.Mechanism:
    """Every mechanism family, built from a small spec."""
    return ldp.build(EVERY_SPEC[request.param])


@pytest.fixture
def stat(family: ldp.Mechanism) -> SupportCounts:
    rng = np.random.default_rng(20261123)
    return family.aggregate(family.randomize(_answers(family, rng), rng))


@pytest.fixture
def estimate(family: ldp.Mechanism, stat: SupportCounts) -> ldp.Estimate:
    return family.estimate(stat)


def test_every_family_returns_the_common_estimate(family, estimate):
    assert isinstance(estimate, ldp.Estimate)
    assert estimate.n == N
    assert estimate.mechanism == family.name
    assert estimate.epsilon == family.epsilon


def test_shares_have_one_entry_per_answer_exactly_when_identifiable(family, estimate):
    size = family.k if estimate.identifiable else 0
    assert estimate.estimate.shape == estimate.standard_error.shape == (size,)
    assert np.all(np.isfinite(estimate.estimate))
    assert np.all(estimate.standard_error >= 0)
    assert estimate.identifiable == (family.name != "duchi")


def test_every_listed_interval_method_brackets_the_shares(estimate):
    assert estimate.interval_methods
    if not estimate.identifiable:
        for method in estimate.interval_methods:
            with pytest.raises(ValueError, match="not identifiable"):
                estimate.confidence_interval(0.95, method)
        return
    for method in estimate.interval_methods:
        interval = estimate.confidence_interval(0.9, method)
        assert interval.low.shape == interval.high.shape == estimate.estimate.shape
        assert np.all(interval.low <= interval.high)
        joint = estimate.confidence_interval(0.9, method, simultaneous=True)
        assert np.all(joint.low <= interval.low + 1e-12)
        assert np.all(joint.high >= interval.high - 1e-12)


def test_the_default_interval_method_is_the_first_listed(estimate):
    if not estimate.identifiable:
        with pytest.raises(ValueError, match="not identifiable"):
            estimate.confidence_interval()
        return
    default = estimate.confidence_interval(0.95)
    first = estimate.confidence_interval(0.95, estimate.interval_methods[0])
    assert np.array_equal(default.low, first.low)
    assert np.array_equal(default.high, first.high)


def test_unknown_interval_method_and_bad_level_are_refused(estimate):
    with pytest.raises(ValueError, match="method is 'bayes'"):
        estimate.confidence_interval(0.95, "bayes")
    with pytest.raises(ValueError, match="level"):
        estimate.confidence_interval(1.5)


def test_every_consistent_method_gives_shares_in_range(estimate, family):
    assert estimate.consistent_methods
    for method in estimate.consistent_methods:
        if not estimate.identifiable:
            with pytest.raises(ValueError, match="not identifiable"):
                estimate.consistent(method)
            continue
        shares = estimate.consistent(method)
        assert shares.shape == (family.k,)
        assert np.all((shares >= 0) & (shares <= 1))
        if estimate.sums_to_one:
            assert shares.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="method is 'bogus'"):
        estimate.consistent("bogus")


def test_the_default_consistent_method_is_the_first_listed(estimate):
    if estimate.identifiable:
        first = estimate.consistent(estimate.consistent_methods[0])
        assert np.array_equal(estimate.consistent(), first)


def test_only_multi_select_shares_need_not_sum_to_one(family, estimate):
    multi = family.name in ("multi_rr", "padding_sampling")
    assert estimate.sums_to_one is not multi


def test_mean_exists_exactly_when_answers_have_values(family, estimate):
    mean = estimate.mean()
    if family.input_values() is None:
        assert mean is None
        return
    assert isinstance(mean, ldp.MeanEstimate)
    assert mean.n == N and mean.mechanism == family.name
    values = family.input_values()
    assert values.min() - 10 * family.value_range <= mean.estimate
    assert mean.estimate <= values.max() + 10 * family.value_range
    for method in mean.interval_methods:
        interval = mean.confidence_interval(0.95, method)
        assert interval.low < mean.estimate < interval.high


def test_to_dict_is_json_with_the_common_fields(family, estimate):
    data = json.loads(json.dumps(estimate.to_dict()))
    assert data["n"] == N
    assert data["mechanism"] == family.name
    assert data["epsilon"] == family.epsilon
    assert data["estimate"] == [float(x) for x in estimate.estimate]
    assert data["standard_error"] == [float(x) for x in estimate.standard_error]
    assert data["counts"] == [int(c) for c in estimate.counts]


def test_estimate_refuses_fewer_reports_than_the_minimum(family, stat):
    assert family.minimum_reports in (1, 2)
    few = SupportCounts(family.minimum_reports - 1, stat.counts * 0, stat.spec)
    with pytest.raises(ValueError, match="reports"):
        family.estimate(few)


def test_estimate_refuses_counts_of_another_spec(family, stat):
    other = SupportCounts(stat.n, stat.counts, {**stat.spec, "epsilon": 0.123})
    with pytest.raises(ValueError, match="different spec"):
        family.estimate(other)


def test_interval_method_names_the_headline_before_any_share(family, estimate):
    if estimate.mean() is None:
        assert family.interval_method == estimate.interval_methods[0]
    else:
        assert family.interval_method == estimate.mean().interval_methods[0]


def test_planning_figures_exist_for_every_family(family):
    variance = family.worst_case_variance()
    assert math.isfinite(variance) and variance > 0
    assert ldp.worst_case_variance(family) == variance
    assert ldp.margin_of_error(family, 400) > 0
    assert family.value_range > 0
    assert 0 <= family.bias_bound < 1e-6 * family.value_range


def test_manipulation_bound_is_proportional_to_the_fake_share(family):
    one = family.manipulation_bound(0.01)
    assert one > 0
    assert family.manipulation_bound(0.02) == pytest.approx(2 * one)


def test_counts_layout_read_from_the_spec_matches_the_aggregate(family, stat):
    length, histogram = counts_layout(family.spec)
    assert length == stat.counts.size
    assert (int(stat.counts.sum()) == stat.n) or not histogram
    assert SupportCounts.from_dict(stat.to_dict()) == stat


def test_estimate_refuses_counts_one_longer_than_the_spec_allows(family, stat):
    longer = SupportCounts(stat.n, np.append(stat.counts, 0), stat.spec)
    with pytest.raises(ValueError, match="counts for a"):
        family.estimate(longer)
