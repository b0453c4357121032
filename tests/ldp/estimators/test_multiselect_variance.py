"""Multi-select variances and the multi_rr / padding_sampling recommendation."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.estimators import multiselect


def test_worst_case_variances_match_a_brute_force_maximum() -> None:
    specs = [
        {"mechanism": "multi_rr", "k": 5, "epsilon": 1.0},
        {"mechanism": "multi_rr", "k": 3, "epsilon": 9.0},
        {"mechanism": "padding_sampling", "k": 20, "ell": 2, "epsilon": 2.0},
        {"mechanism": "padding_sampling", "k": 4, "ell": 4, "epsilon": 8.0},
    ]
    grid = np.linspace(0.0, 1.0, 100_001)
    for spec in specs:
        m = ldp.build(spec)
        brute = m.share_variance(grid).max()
        assert m.worst_case_variance() == pytest.approx(brute, rel=1e-8)
        assert m.variance_at_zero() == pytest.approx(m.share_variance(0.0))
    p, q = ldp.build(specs[0]).option_support
    assert ldp.build(specs[0]).worst_case_variance() == pytest.approx(
        1 / (4 * (p - q) ** 2)
    )


def test_padding_sampling_beats_multi_rr_for_many_options_few_selections() -> None:
    """k = 20 options, at most 2 selected, total ε = 2."""
    rr = ldp.build({"mechanism": "multi_rr", "k": 20, "epsilon": 2.0})
    ps = ldp.build({"mechanism": "padding_sampling", "k": 20, "ell": 2, "epsilon": 2.0})
    assert rr.epsilon <= 2.0 and ps.epsilon <= 2.0
    # worst case over the share: about 100.2 against about 4.96 per report
    assert rr.worst_case_variance() > 100.0
    assert ps.worst_case_variance() < 5.0
    assert rr.worst_case_variance() / ps.worst_case_variance() > 20
    # rare options too: about 100 against 1.5
    assert rr.variance_at_zero() > 99.0 and ps.variance_at_zero() < 1.6
    # and in simulated surveys (n = 1,000, 2,000 surveys, true share 0.2)
    rng = np.random.default_rng(42)
    spread = {}
    for m in (rr, ps):
        p, q = m.option_support
        counts = rng.binomial(1_000, q + (p - q) * 0.2 / m.scale, size=2_000)
        spread[m.name] = multiselect.unbiased_shares(counts, 1_000, p, q, m.scale).std()
    assert spread["multi_rr"] > 0.30 and spread["padding_sampling"] < 0.06
    assert spread["multi_rr"] / spread["padding_sampling"] > 5


def test_multi_rr_wins_for_few_options_and_large_epsilon() -> None:
    rr = ldp.build({"mechanism": "multi_rr", "k": 3, "epsilon": 5.0})
    ps = ldp.build({"mechanism": "padding_sampling", "k": 3, "ell": 3, "epsilon": 5.0})
    assert rr.worst_case_variance() < 0.6 < 2.0 < ps.worst_case_variance()


@pytest.mark.parametrize(
    ("k", "epsilon", "most", "expected"),
    [
        (20, 2.0, 2, "padding_sampling"),
        (64, 1.0, 5, "padding_sampling"),
        (3, 5.0, 3, "multi_rr"),
        (4, 8.0, 4, "multi_rr"),
        (2, 10.0, 2, "multi_rr"),
        (2, 10.0, 1, "padding_sampling"),
    ],
)
def test_recommend_multiselect_picks_the_lower_worst_case_variance(
    k: int, epsilon: float, most: int, expected: str
) -> None:
    result = ldp.recommend_multiselect(k=k, epsilon=epsilon, max_selections=most)
    assert result.mechanism == expected
    assert {alt.mechanism for alt in result.alternatives} == {
        "multi_rr",
        "padding_sampling",
    }
    variances = [alt.variance for alt in result.alternatives]
    assert variances == sorted(variances)
    assert result.variance == variances[0]
    assert result.alternatives[0].spec == result.spec
    for alt in result.alternatives:
        m = ldp.build(alt.spec)
        assert m.spec == alt.spec and m.epsilon <= epsilon
        assert alt.variance == m.worst_case_variance()
    padding = next(a for a in result.alternatives if a.mechanism == "padding_sampling")
    assert padding.spec["ell"] == most


def test_recommend_multiselect_beyond_64_options_offers_padding_only() -> None:
    result = ldp.recommend_multiselect(k=200, epsilon=1.0, max_selections=3)
    assert result.mechanism == "padding_sampling"
    assert [alt.mechanism for alt in result.alternatives] == ["padding_sampling"]


@pytest.mark.parametrize("most", [0, 6, True, 2.0, None])
def test_recommend_multiselect_rejects_bad_max_selections(most: object) -> None:
    with pytest.raises(ValueError, match="max_selections"):
        ldp.recommend_multiselect(k=5, epsilon=1.0, max_selections=most)  # type: ignore[arg-type]


def test_recommend_for_single_choice_is_unchanged() -> None:
    assert ldp.recommend(k=5, epsilon=1.0).mechanism == "grr"
    names = {alt.mechanism for alt in ldp.recommend(k=50, epsilon=1.0).alternatives}
    assert names == {"grr", "oue", "olh", "hadamard", "sue"}
