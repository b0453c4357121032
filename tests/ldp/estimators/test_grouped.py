"""Weighted estimates from per-group moments equal those from the reports."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.estimators.grouped import (
    GroupMoments,
    group_moments,
    grouped_design_effect,
    weighted_estimate_grouped,
    weighted_mean_grouped,
)

WEIGHTS = [0.4, 1.0, 2.5]


def _groups(mechanism, seed: int, sizes=(30, 7, 12)):
    """Reports of three groups, randomized from different true answers."""
    rng = np.random.default_rng(seed)
    groups = []
    for index, size in enumerate(sizes):
        truth = rng.integers(0, max(1, mechanism.k - index), size)
        groups.append(mechanism.randomize(truth, rng))
    return groups


STRATA = [None, ["a", "b", "a"]]  # weights held fixed, or two post-strata


def _expanded(groups, strata):
    """The reports, their weights and their cells (None without strata)."""
    weights = [np.full(len(g), w) for g, w in zip(groups, WEIGHTS, strict=True)]
    cells = (
        None
        if strata is None
        else [c for g, c in zip(groups, strata, strict=True) for _ in range(len(g))]
    )
    return np.concatenate(groups), np.concatenate(weights), cells


def _grouped(mechanism, groups):
    return [
        (w, group_moments(mechanism, g)) for g, w in zip(groups, WEIGHTS, strict=True)
    ]


@pytest.mark.parametrize("strata", STRATA, ids=["fixed", "post-strata"])
@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "warner", "epsilon": 1.0},
        {"mechanism": "grr", "k": 4, "epsilon": 1.0},
        {"mechanism": "oue", "k": 5, "epsilon": 1.0},
        {"mechanism": "olh", "k": 6, "epsilon": 2.0},
    ],
    ids=["warner", "grr", "oue", "olh"],
)
def test_grouped_weighted_shares_equal_the_shares_of_the_expanded_reports(spec, strata):
    mechanism = ldp.build(spec)
    groups = _groups(mechanism, 7)
    expected = ldp.weighted_estimate(mechanism, *_expanded(groups, strata))

    got = weighted_estimate_grouped(mechanism, _grouped(mechanism, groups), strata)

    np.testing.assert_allclose(got.estimate, expected.estimate, atol=1e-12)
    np.testing.assert_allclose(got.covariance, expected.covariance, atol=1e-12)
    assert got.design_effect == pytest.approx(expected.design_effect)
    assert got.n == expected.n


@pytest.mark.parametrize("strata", STRATA, ids=["fixed", "post-strata"])
def test_grouped_weighted_mean_equals_the_mean_of_the_expanded_reports(strata):
    mechanism = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "40", "step": "1", "epsilon": 2}
    )
    groups = _groups(mechanism, 8)
    expected = ldp.weighted_mean(mechanism, *_expanded(groups, strata))

    got = weighted_mean_grouped(mechanism, _grouped(mechanism, groups), strata)

    assert got.estimate == pytest.approx(expected.estimate, abs=1e-12)
    assert got.standard_error == pytest.approx(expected.standard_error, abs=1e-12)


def test_moments_of_two_report_sets_add_and_subtract_like_their_union():
    mechanism = ldp.build({"mechanism": "oue", "k": 4, "epsilon": 1.0})
    a, b = _groups(mechanism, 9, sizes=(10, 6))
    union = group_moments(mechanism, np.concatenate([a, b]))

    added = group_moments(mechanism, a) + group_moments(mechanism, b)
    back = GroupMoments.from_dict(
        (added + group_moments(mechanism, b).negated()).to_dict()
    )

    np.testing.assert_array_equal(added.cross, union.cross)
    np.testing.assert_array_equal(added.support, union.support)
    np.testing.assert_array_equal(back.cross, group_moments(mechanism, a).cross)


@pytest.mark.parametrize(
    "groups", [[(1.0, GroupMoments(1))], [(-1.0, GroupMoments(5))]], ids=["n1", "neg"]
)
def test_grouped_estimates_refuse_fewer_than_two_reports_or_negative_weights(groups):
    mechanism = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    with pytest.raises(ValueError):
        weighted_mean_grouped(mechanism, groups)
    assert grouped_design_effect([(2.0, GroupMoments(4))]) == pytest.approx(1.0)
