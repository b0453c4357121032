"""recommend(): the minimum-variance oracle, with the alternatives."""

from __future__ import annotations

import math

import pytest

import ldp
from ldp.planning import variance_at_zero


def test_binary_questions_get_warner():
    result = ldp.recommend(k=2, epsilon=1.0)
    assert result.mechanism == "warner"
    assert result.spec == ldp.build({"mechanism": "warner", "epsilon": 1.0}).spec


@pytest.mark.parametrize(
    ("k", "epsilon", "expected"),
    [(5, 1.0, "grr"), (10, 1.0, "grr"), (100, 1.0, "oue"), (1000, 4.0, "oue")],
)
def test_grr_below_the_wang_threshold_and_oue_above(k, epsilon, expected):
    assert ldp.recommend(k=k, epsilon=epsilon).mechanism == expected


@pytest.mark.parametrize("k", [20, 62])
def test_choice_flips_at_k_minus_2_equal_to_3_e_eps(k):
    boundary = math.log((k - 2) / 3)
    assert ldp.recommend(k=k, epsilon=boundary + 0.01).mechanism == "grr"
    assert ldp.recommend(k=k, epsilon=boundary - 0.01).mechanism == "oue"


def test_alternatives_list_every_candidate_lowest_variance_first():
    result = ldp.recommend(k=50, epsilon=1.0)
    names = {alt.mechanism for alt in result.alternatives}
    assert names == {"grr", "oue", "olh", "hadamard", "sue"}
    variances = [alt.variance for alt in result.alternatives]
    assert variances == sorted(variances)
    assert result.variance == variances[0]


def test_reported_variance_is_that_of_the_built_spec():
    result = ldp.recommend(k=50, epsilon=1.0)
    assert result.variance == variance_at_zero(ldp.build(result.spec))


def test_recommend_rejects_invalid_k():
    with pytest.raises(ValueError, match="'k' is 1"):
        ldp.recommend(k=1, epsilon=1.0)
