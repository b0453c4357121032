"""The mechanism contract for ordinal and numeric-grid mechanisms."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ldp
from ldp.exact import channel_epsilon
from ldp.sampling import CountingDraw, generator_words, injected_words
from tests.ldp.mechanisms.numeric_specs import FINITE_SPECS

NAMES = sorted(FINITE_SPECS)


@pytest.fixture(params=NAMES, scope="module")
def mechanism(request: pytest.FixtureRequest):
    return ldp.build(FINITE_SPECS[request.param])


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)


def _ints(value) -> list[int]:
    if isinstance(value, list):
        return [i for item in value for i in _ints(item)]
    assert type(value) is int, value
    return [value]


def test_every_new_mechanism_is_registered():
    assert set(NAMES) <= set(ldp.MECHANISMS)
    assert set(NAMES) <= set(ldp.mechanisms.REGISTRY)


def test_compiled_spec_round_trips_through_json_and_build(mechanism):
    spec = json.loads(json.dumps(mechanism.spec))
    rebuilt = ldp.build(spec)
    assert rebuilt.spec == mechanism.spec
    assert rebuilt.weights == mechanism.weights
    assert spec["version"] == ldp.SPEC_VERSION


def test_drifted_weights_are_refused(mechanism):
    spec = mechanism.spec
    key = next(iter(spec["weights"]))
    spec["weights"][key] = 7 if spec["weights"][key] != 7 else 8
    with pytest.raises(ValueError, match="'weights'"):
        ldp.build(spec)


def test_weights_are_plain_integers_and_channel_weights_at_least_one(mechanism):
    for value in mechanism.weights.values():
        assert all(i >= 0 for i in _ints(value))
    weights = mechanism.channel_weights()
    assert weights.dtype == np.int64
    assert weights.min() >= 1
    assert weights.shape == (mechanism.k, mechanism.outputs)


def test_rows_sum_to_the_same_total_at_most_2_to_32(mechanism):
    sums = mechanism.channel_weights().sum(axis=1)
    assert np.all(sums == mechanism.row_sum)
    assert mechanism.row_sum <= 2**32
    assert np.allclose(mechanism.channel_matrix().sum(axis=1), 1.0)


def test_exact_epsilon_matches_an_independent_computation(mechanism):
    independent = channel_epsilon(mechanism.channel_weights().tolist())
    assert mechanism.epsilon_exact == independent
    upper = ldp.accounting.pure_epsilon_exact(mechanism.channel_weights())
    assert abs(upper - mechanism.epsilon_exact) < Decimal("1e-50")


def test_epsilon_is_delivered_rounded_up_and_near_requested(mechanism):
    requested = Decimal(FINITE_SPECS[mechanism.name]["epsilon"])
    assert mechanism.epsilon_exact <= requested
    assert requested - mechanism.epsilon_exact <= Decimal("1e-6")
    assert Decimal(mechanism.epsilon) >= mechanism.epsilon_exact
    assert Decimal(np.nextafter(mechanism.epsilon, 0)) < mechanism.epsilon_exact
    assert Decimal(mechanism.epsilon_display) >= mechanism.epsilon_exact


def test_randomize_one_uses_one_word_for_every_answer(mechanism, rng):
    for answer in range(mechanism.k):
        words = (int(w) for w in rng.integers(0, 2**31, 8))
        draw = CountingDraw(injected_words(words))
        mechanism.validate_report(mechanism.randomize_one(answer, draw))
        assert draw.count == 1


def _breakpoints(mechanism, x: int) -> list[int]:
    """Where the contract's map from the draw v to the report may change."""
    w, total = mechanism.weights, mechanism.row_sum
    if mechanism.name == "ordinal":
        cuts = np.cumsum(w["rows"][x]).tolist()
    elif mechanism.name in ("geometric", "gaussian"):
        cuts = np.cumsum(w["kernel"]).tolist()
    elif mechanism.name == "duchi":
        cuts = [w["base"] + x * w["slope"]]
    else:
        band = w["width"] * w["high"]
        cuts = [h * w["high"] for h in range(1, w["width"] + 1)]
        cuts += [band + i * w["low"] for i in range(1, w["outputs"] - w["width"] + 1)]
    return sorted({0, total, *(int(c) for c in cuts if 0 < c < total)})


def test_vectorised_map_equals_scalar_sampler_at_every_boundary(mechanism):
    for x in range(mechanism.k):
        cuts = _breakpoints(mechanism, x)
        draws = sorted({v for c in cuts for v in (c - 1, c) if 0 <= v < cuts[-1]})
        scalar = [mechanism._sample(x, v) for v in draws]
        vector = mechanism._output(
            np.full(len(draws), x, dtype=np.int64), np.asarray(draws, dtype=np.int64)
        )
        assert scalar == vector.tolist()


def test_scalar_sampler_realises_the_channel_exactly(mechanism):
    # The report is constant between breakpoints, so the exact distribution of
    # one uniform draw is a sum of interval lengths: integer equality.
    for x in range(mechanism.k):
        counts = np.zeros(mechanism.outputs, dtype=np.int64)
        cuts = _breakpoints(mechanism, x)
        for low, high in itertools.pairwise(cuts):
            report = mechanism._sample(x, low)
            assert mechanism._sample(x, high - 1) == report
            assert mechanism._sample(x, (low + high) // 2) == report
            counts[report] += high - low
        assert counts.tolist() == mechanism.channel_weights()[x].tolist()


def test_randomize_one_and_randomize_agree_in_distribution(mechanism, rng):
    n = 3000
    q = mechanism.channel_matrix()
    draw = generator_words(rng)
    for x in (0, mechanism.k - 1):
        one = [mechanism.randomize_one(x, draw) for _ in range(n)]
        many = mechanism.randomize(np.full(n, x), rng)
        for sample in (np.asarray(one), many):
            observed = np.bincount(sample, minlength=mechanism.outputs)
            expected = q[x] * n
            keep = expected >= 5
            obs = np.append(observed[keep], observed[~keep].sum())
            exp = np.append(expected[keep], expected[~keep].sum())
            if exp[-1] == 0:
                obs, exp = obs[:-1], exp[:-1]
            assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_aggregates_add_and_json_reports_match_arrays(mechanism, rng):
    values = rng.integers(0, mechanism.k, size=300)
    reports = mechanism.randomize(values, rng)
    first, second = (
        mechanism.aggregate(reports[:100]),
        mechanism.aggregate(reports[100:]),
    )
    total = mechanism.aggregate(reports)
    assert first + second == total
    assert mechanism.aggregate([int(r) for r in reports]) == total
    assert total.n == 300 and int(total.counts.sum()) == 300
    assert total.counts.shape == (mechanism.outputs,)


def test_randomize_refuses_out_of_range_answers(mechanism, rng):
    with pytest.raises(ValueError):
        mechanism.randomize([mechanism.k], rng)
    with pytest.raises(ValueError):
        mechanism.randomize_one(-1, injected_words([0]))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_in_domain_report_is_accepted(data):
    mechanism = ldp.build(FINITE_SPECS[data.draw(st.sampled_from(NAMES))])
    report = data.draw(st.integers(0, mechanism.outputs - 1))
    mechanism.validate_report(report)
    assert mechanism.reports_to_array([report]).tolist() == [report]


@settings(max_examples=120, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    report=st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=10_000),
        st.booleans(),
        st.floats(allow_nan=True),
        st.text(max_size=3),
        st.none(),
        st.lists(st.integers(0, 3), max_size=3),
    ),
)
def test_anything_else_is_rejected(name, report):
    mechanism = ldp.build(FINITE_SPECS[name])
    with pytest.raises(ValueError):
        mechanism.validate_report(report)
    with pytest.raises(ValueError):
        mechanism.aggregate([0, report])


def test_estimate_gives_identifiable_shares_and_the_family_mean(mechanism, rng):
    stat = mechanism.aggregate(
        mechanism.randomize(rng.integers(0, mechanism.k, 400), rng)
    )
    estimate = mechanism.estimate(stat)
    score = mechanism.estimate_mean(stat)
    assert isinstance(estimate, ldp.ChannelEstimate)
    assert isinstance(score, ldp.MeanEstimate) and score.n == 400
    mean = estimate.mean()
    if mechanism.name == "ordinal":  # the mean of the shares, vᵀ f̂
        shares_mean = mechanism.input_values() @ estimate.estimate
        assert mean.estimate == pytest.approx(shares_mean)
    else:  # numeric grids: the score mean itself
        assert mean == score
    if mechanism.name == "duchi":
        assert not estimate.identifiable
        assert estimate.estimate.size == estimate.standard_error.size == 0
        with pytest.raises(ValueError, match="not identifiable"):
            estimate.confidence_interval()
        with pytest.raises(ValueError, match="not identifiable"):
            estimate.consistent()
    else:
        assert estimate.identifiable
        shares_mean = float(mechanism.input_values() @ estimate.estimate)
        assert shares_mean == pytest.approx(score.estimate, abs=1e-8)
        assert estimate.estimate.shape == (mechanism.k,)
        if mechanism.outputs == mechanism.k:  # square: (Qᵀ)⁻¹ keeps the sum
            assert estimate.estimate.sum() == pytest.approx(1.0)


def test_estimate_refuses_a_histogram_of_another_spec(mechanism, rng):
    other = ldp.build({**FINITE_SPECS[mechanism.name], "epsilon": 0.7})
    stat = other.aggregate(other.randomize(np.zeros(10, dtype=int), rng))
    with pytest.raises(ValueError, match="different spec"):
        mechanism.estimate(stat)


def test_scores_are_unbiased_for_every_input(mechanism):
    q, s = mechanism.channel_matrix(), mechanism.scores()
    values = mechanism.input_values()
    assert np.allclose(q @ s, values, atol=1e-9 * (np.abs(values).max() + 1))
    assert mechanism.score_bias < 1e-8
    assert np.all(mechanism.mean_variance() >= 0)
