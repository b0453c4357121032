"""One contract suite, run against every mechanism family."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.sampling import CountingDraw, generator_words, injected_words
from tests.ldp.conftest import supports

WORDS_PER_REPORT = {
    "forced_response": lambda k: 1,
    "warner": lambda k: 1,
    "grr": lambda k: 1,
    "sue": lambda k: k,
    "oue": lambda k: k,
    "olh": lambda k: 3,
    "hadamard": lambda k: 2,
}


def _reports(mechanism, rng, n=400):
    values = rng.integers(0, mechanism.k, size=n)
    return values, mechanism.randomize(values, rng)


def test_compiled_spec_round_trips_through_build(mechanism):
    rebuilt = ldp.build(mechanism.spec)
    assert rebuilt.spec == mechanism.spec
    assert rebuilt.weights == mechanism.weights


def test_compiled_spec_survives_json(mechanism):
    spec = json.loads(json.dumps(mechanism.spec))
    assert ldp.build(spec).spec == mechanism.spec
    assert spec["version"] == ldp.SPEC_VERSION


def test_weights_are_integers_at_least_one(mechanism):
    assert all(type(w) is int and w >= 1 for w in mechanism.weights.values())


def test_epsilon_is_smallest_float_not_below_exact(mechanism):
    assert isinstance(mechanism.epsilon_exact, Decimal)
    assert Decimal(mechanism.epsilon) >= mechanism.epsilon_exact
    assert Decimal(np.nextafter(mechanism.epsilon, 0)) < mechanism.epsilon_exact
    assert Decimal(mechanism.epsilon_display) >= mechanism.epsilon_exact


def test_support_probabilities_have_length_k_with_p_above_q(mechanism):
    assert mechanism.p_star.shape == (mechanism.k,)
    assert mechanism.q_star.shape == (mechanism.k,)
    assert np.all(mechanism.q_star > 0)
    assert np.all(mechanism.p_star > mechanism.q_star)
    assert np.all(mechanism.p_star < 1)


def test_randomize_one_uses_same_number_of_words_for_every_answer(mechanism, rng):
    expected = WORDS_PER_REPORT[mechanism.name](mechanism.k)
    for answer in range(mechanism.k):
        # Words below 2^31 are never rejected, so the count is the draw count.
        draw = CountingDraw(injected_words(int(w) for w in rng.integers(0, 2**31, 64)))
        mechanism.randomize_one(answer, draw)
        assert draw.count == expected


def test_randomize_one_reports_are_valid(mechanism, rng):
    draw = generator_words(rng)
    for answer in range(mechanism.k):
        for _ in range(20):
            mechanism.validate_report(mechanism.randomize_one(answer, draw))


def test_randomize_reports_are_valid_json_reports(mechanism, rng):
    _, reports = _reports(mechanism, rng, n=200)
    for report in json.loads(json.dumps(reports.tolist())):
        mechanism.validate_report(report)


@pytest.mark.parametrize("bad", [-1, 99, True, 1.0, "0", None])
def test_randomize_one_rejects_answer_outside_domain(mechanism, bad):
    with pytest.raises(ValueError, match="answer"):
        mechanism.randomize_one(bad, injected_words([0] * 100))


def test_randomize_rejects_answers_outside_domain(mechanism, rng):
    with pytest.raises(ValueError, match="answers"):
        mechanism.randomize(np.array([0, mechanism.k]), rng)


def test_reports_to_array_round_trips_randomize_output(mechanism, rng):
    _, reports = _reports(mechanism, rng)
    array = mechanism.reports_to_array(reports.tolist())
    assert np.array_equal(array, reports)


def test_aggregate_of_json_reports_equals_aggregate_of_array(mechanism, rng):
    _, reports = _reports(mechanism, rng)
    assert mechanism.aggregate(reports.tolist()) == mechanism.aggregate(reports)


def test_support_counts_match_naive_definition(mechanism, rng):
    _, reports = _reports(mechanism, rng, n=300)
    stat = mechanism.aggregate(reports)
    spec = mechanism.spec
    naive = [
        sum(supports(spec, report, v) for report in reports.tolist())
        for v in range(mechanism.k)
    ]
    assert stat.n == 300
    assert stat.counts.tolist() == naive


def test_aggregates_are_additive(mechanism, rng):
    _, reports = _reports(mechanism, rng)
    first, second = (
        mechanism.aggregate(reports[:150]),
        mechanism.aggregate(reports[150:]),
    )
    assert first + second == mechanism.aggregate(reports)


def test_aggregate_of_no_reports_is_zero(mechanism):
    stat = mechanism.aggregate([])
    assert stat.n == 0
    assert stat.counts.tolist() == [0] * mechanism.k


def test_aggregate_round_trips_through_json(mechanism, rng):
    _, reports = _reports(mechanism, rng)
    stat = mechanism.aggregate(reports)
    data = json.loads(json.dumps(stat.to_dict()))
    assert type(stat).from_dict(data) == stat


def test_adding_aggregates_of_different_specs_fails(mechanism, rng):
    other = ldp.build({"mechanism": "grr", "k": mechanism.k, "epsilon": 0.5})
    with pytest.raises(ValueError, match="different specs"):
        mechanism.aggregate([]) + other.aggregate([])


def test_estimate_rejects_counts_from_another_spec(mechanism):
    other = ldp.build({"mechanism": "grr", "k": mechanism.k, "epsilon": 0.5})
    with pytest.raises(ValueError, match="different spec"):
        mechanism.estimate(other.aggregate([0]))


def test_aggregate_rejects_malformed_report_list(mechanism):
    with pytest.raises(ValueError, match=mechanism.name):
        mechanism.aggregate([None])


def test_estimate_is_json_able_and_matches_formula(mechanism, rng):
    _, reports = _reports(mechanism, rng)
    stat = mechanism.aggregate(reports)
    est = mechanism.estimate(stat)
    p, q = mechanism.p_star, mechanism.q_star
    lam = stat.counts / stat.n
    assert np.allclose(est.estimate, (lam - q) / (p - q))
    assert np.allclose(est.standard_error, np.sqrt(lam * (1 - lam) / stat.n) / (p - q))
    assert est.epsilon == mechanism.epsilon
    assert json.loads(json.dumps(est.to_dict()))["n"] == 400


def _report_category(mechanism, answer, report):
    """A small categorical summary of a report whose law depends on the channel."""
    if mechanism.name == "olh":
        a, b, y = report
        h = ((a * answer + b) % 2147483647) % mechanism.weights["g"]
        return (y, h == y)
    return json.dumps(report)


def test_randomize_one_and_randomize_agree_in_distribution(mechanism, rng):
    answer = mechanism.k - 1
    n = 6000
    draw = generator_words(rng)
    scalar = [
        _report_category(mechanism, answer, mechanism.randomize_one(answer, draw))
        for _ in range(n)
    ]
    vector = [
        _report_category(mechanism, answer, report)
        for report in mechanism.randomize(np.full(n, answer), rng).tolist()
    ]
    categories = sorted(set(scalar) | set(vector), key=str)
    table = np.array(
        [[values.count(c) for c in categories] for values in (scalar, vector)]
    )
    result = stats.chi2_contingency(table)
    assert result.pvalue > 1e-4


def test_own_answer_is_supported_with_probability_p_star(mechanism, rng):
    n = 20000
    answer = 0
    stat = mechanism.aggregate(mechanism.randomize(np.full(n, answer), rng))
    expected = np.where(
        np.arange(mechanism.k) == answer, mechanism.p_star, mechanism.q_star
    )
    z = (stat.counts / n - expected) / np.sqrt(expected * (1 - expected) / n)
    assert np.all(np.abs(z) < 4.5)


def test_randomize_one_defaults_to_the_secure_word_source(mechanism):
    for answer in range(mechanism.k):
        mechanism.validate_report(mechanism.randomize_one(answer))
