"""Per-option randomized response for multi-select questions (multi_rr)."""

from __future__ import annotations

import itertools
import json
from decimal import Context, Decimal, localcontext
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ldp
from ldp.exact import channel_epsilon, log_ratio
from ldp.sampling import CountingDraw, generator_words, injected_words

S = 2**32
PROPERTY = settings(max_examples=150, derandomize=True, database=None, deadline=None)
GRID_K = (2, 3, 5, 10, 64)
GRID_EPSILON = (0.05, 0.1, 0.5, 1.0, np.log(3), 2.0, 5.0, 10.0)


def build(k: int = 3, epsilon: float = 1.0) -> Any:
    return ldp.build({"mechanism": "multi_rr", "k": k, "epsilon": epsilon})


@pytest.mark.parametrize("k", GRID_K)
def test_weights_and_delivered_epsilon_over_the_grid(k: int) -> None:
    with localcontext(Context(prec=60)):
        check_grid(k)


def check_grid(k: int) -> None:
    for epsilon in GRID_EPSILON:
        m = build(k, float(epsilon))
        w = m.weights
        assert all(type(x) is int and x >= 1 for x in w.values())
        assert w["total"] == S and w["one_if_one"] + w["one_if_zero"] == S
        requested_total = Decimal(float(epsilon))
        requested_option = requested_total / k
        per_option = m.epsilon_per_option_exact
        assert per_option == log_ratio(w["one_if_one"], w["one_if_zero"])
        assert 0 <= requested_option - per_option <= Decimal("1e-6")
        assert abs(m.epsilon_exact - k * per_option) < Decimal("1e-50")
        assert 0 <= requested_total - m.epsilon_exact <= Decimal("1e-6")
        assert Decimal(m.epsilon) >= m.epsilon_exact
        assert Decimal(m.epsilon_per_option) >= per_option
        assert Decimal(m.epsilon_display) >= m.epsilon_exact
        assert m.spec["epsilon_per_option"] == float(epsilon) / k


def test_total_cost_is_k_times_the_per_option_cost() -> None:
    m = build(10, 2.0)
    assert m.epsilon_per_option == pytest.approx(0.2, abs=1e-6)
    assert m.epsilon == pytest.approx(10 * m.epsilon_per_option, rel=1e-12)
    assert m.epsilon <= 2.0
    estimate = m.estimate(
        m.aggregate(m.randomize([[1]] * 50, np.random.default_rng(1)))
    )
    assert estimate.epsilon == m.epsilon
    assert estimate.epsilon_per_option == m.epsilon_per_option


def channel_weight(w: dict[str, int], selected: set[int], bits: tuple[int, ...]) -> int:
    """Independent integer weight of report ``bits`` given the selection."""
    weight = 1
    for i, bit in enumerate(bits):
        one = w["one_if_one"] if i in selected else w["one_if_zero"]
        weight *= one if bit else w["total"] - one
    return weight


@pytest.mark.parametrize(("k", "epsilon"), [(2, 1.0), (3, 0.5), (4, 2.0), (4, 10.0)])
def test_exact_epsilon_of_the_whole_channel_over_all_subsets(
    k: int, epsilon: float
) -> None:
    m = build(k, epsilon)
    subsets = [
        set(c) for r in range(k + 1) for c in itertools.combinations(range(k), r)
    ]
    outputs = list(itertools.product((0, 1), repeat=k))
    channel = [[channel_weight(m.weights, x, y) for y in outputs] for x in subsets]
    assert all(sum(row) == S**k for row in channel)
    exact = channel_epsilon(channel)
    assert abs(exact - m.epsilon_exact) < Decimal("1e-50")
    with localcontext(Context(prec=60)):
        assert abs(exact - k * m.epsilon_per_option_exact) < Decimal("1e-50")
    # one option's bit alone costs the per-option epsilon
    single = [[channel_weight(m.weights, x, y) for y in outputs] for x in (set(), {0})]
    assert abs(channel_epsilon(single) - m.epsilon_per_option_exact) < Decimal("1e-50")


def test_randomize_one_follows_the_contract_word_by_word() -> None:
    m = build(3, 1.0)
    a1, a0 = m.weights["one_if_one"], m.weights["one_if_zero"]
    words = [a1 - 1, a0, a1]  # bit 0 selected: 1; bit 1 not: a0 < a0 false; bit 2
    assert m.randomize_one([0, 2], injected_words(words)) == [1, 0, 0]
    assert m.randomize_one([2, 0], injected_words(words)) == [1, 0, 0]
    assert m.randomize_one([], injected_words(words)) == [0, 0, 0]
    assert m.randomize_one([1], injected_words([a0 - 1, a0 - 1, S - 1])) == [1, 1, 0]
    assert m.randomize_one((0, 1, 2), injected_words([0, a1 - 1, a1])) == [1, 1, 0]


def test_words_consumed_do_not_depend_on_the_answer() -> None:
    m = build(5, 1.0)
    rng = np.random.default_rng(7)
    for selected in ([], [0], [4, 1], [0, 1, 2, 3, 4]):
        draw = CountingDraw(generator_words(rng))
        m.randomize_one(selected, draw)
        assert draw.count == 5


def pattern_index(bits: np.ndarray) -> np.ndarray:
    return bits.astype(np.int64) @ (1 << np.arange(bits.shape[-1]))


def test_randomize_and_randomize_one_have_the_exact_channel() -> None:
    m = build(3, 6.0)  # 2 per option: far from uniform
    selected = [0, 2]
    outputs = list(itertools.product((0, 1), repeat=3))
    expected = np.zeros(8)
    for y in outputs:
        expected[pattern_index(np.array(y))] = channel_weight(m.weights, {0, 2}, y)
    expected /= float(S) ** 3  # S^3 overflows int64
    n = 20_000
    rng = np.random.default_rng(20261122)
    vector = m.randomize([selected] * n, rng)
    draw = generator_words(rng)
    scalar = np.array([m.randomize_one(selected, draw) for _ in range(n)])
    for reports in (vector, scalar):
        observed = np.bincount(pattern_index(reports), minlength=8)
        assert stats.chisquare(observed, n * expected).pvalue > 1e-4
    table = np.stack(
        [
            np.bincount(pattern_index(vector), minlength=8),
            np.bincount(pattern_index(scalar), minlength=8),
        ]
    )
    assert stats.chi2_contingency(table).pvalue > 1e-4


def test_matrix_and_list_answers_randomize_identically() -> None:
    m = build(4, 1.0)
    answers = [[0, 3], [], [1], [0, 1, 2, 3]]
    matrix = np.array([[1, 0, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]])
    a = m.randomize(answers, np.random.default_rng(3))
    b = m.randomize(matrix, np.random.default_rng(3))
    c = m.randomize(matrix.astype(bool), np.random.default_rng(3))
    assert a.shape == (4, 4) and a.dtype == np.uint8
    assert np.array_equal(a, b) and np.array_equal(a, c)


@pytest.mark.parametrize(
    "answer", [[0, 0], [3], [-1], [True], [1.0], "01", 1, [[0]], [None]]
)
def test_bad_answers_are_rejected(answer: Any) -> None:
    m = build(3, 1.0)
    with pytest.raises(ValueError, match="answer"):
        m.randomize_one(answer, injected_words([0, 0, 0]))
    with pytest.raises(ValueError):
        m.randomize([answer], np.random.default_rng(0))


def test_bad_matrices_are_rejected() -> None:
    m = build(3, 1.0)
    with pytest.raises(ValueError, match="shape"):
        m.randomize(np.zeros((2, 4), dtype=int), np.random.default_rng(0))
    with pytest.raises(ValueError, match="0 or 1"):
        m.randomize(np.full((2, 3), 2), np.random.default_rng(0))


def test_aggregates_add_and_json_reports_match_arrays() -> None:
    m = build(4, 2.0)
    rng = np.random.default_rng(11)
    answers = [[0, 1], [2], [], [3, 1, 0]] * 25
    first = m.randomize(answers, rng)
    second = m.randomize(answers[:40], rng)
    both = np.concatenate([first, second])
    assert m.aggregate(first) + m.aggregate(second) == m.aggregate(both)
    as_json = json.loads(json.dumps(both.tolist()))
    assert m.aggregate(as_json) == m.aggregate(both)
    assert np.array_equal(m.reports_to_array(as_json), both)
    stat = m.aggregate(both)
    assert stat.n == 140
    assert np.array_equal(stat.counts, both.sum(axis=0))


@pytest.mark.parametrize(
    ("spec", "field", "fragment"),
    [
        ({"k": 65, "epsilon": 1.0}, "'k'", "k <= 64"),
        ({"k": 1, "epsilon": 1.0}, "'k'", "2 <= k"),
        ({"k": 3}, "'epsilon'", "missing"),
        ({"k": 3, "epsilon": 11}, "'epsilon'", "epsilon <= 10"),
        ({"k": 3, "epsilon": True}, "'epsilon'", "number"),
        ({"k": 3, "epsilon": 1.0, "ell": 2}, "'ell'", "not allowed"),
        (
            {"k": 4, "epsilon": 1.0, "epsilon_per_option": 1.0},
            "'epsilon_per_option'",
            "epsilon / k = 0.25",
        ),
        (
            {"k": 4, "epsilon": 1.0, "epsilon_per_option": "0.25"},
            "'epsilon_per_option'",
            "0.25",
        ),
    ],
)
def test_validation_errors_name_the_field(
    spec: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(ValueError) as error:
        ldp.build({"mechanism": "multi_rr", **spec})
    assert field in str(error.value) and fragment in str(error.value)


def test_compiled_spec_round_trips_and_refuses_drift() -> None:
    m = build(6, 1.5)
    spec = json.loads(json.dumps(m.spec))
    assert set(spec) == {
        "version",
        "mechanism",
        "k",
        "epsilon",
        "epsilon_per_option",
        "weights",
    }
    assert ldp.build(spec).spec == m.spec
    drifted = {**spec, "weights": {**spec["weights"], "one_if_zero": 1}}
    with pytest.raises(ValueError, match="weights"):
        ldp.build(drifted)


def possible(report: Any, k: int) -> bool:
    return (
        isinstance(report, list)
        and len(report) == k
        and all(type(x) is int and x in (0, 1) for x in report)
    )


ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.text(),
    lambda inner: st.lists(inner, max_size=6),
    max_leaves=8,
)


@PROPERTY
@given(bits=st.lists(st.integers(0, 1), min_size=4, max_size=4))
def test_every_possible_report_is_accepted(bits: list[int]) -> None:
    build(4, 1.0).validate_report(bits)


@PROPERTY
@given(report=ANY_JSON | st.lists(st.integers(-1, 2), min_size=3, max_size=5))
def test_anything_else_is_rejected(report: Any) -> None:
    m = build(4, 1.0)
    if possible(report, 4):
        m.validate_report(report)
    else:
        with pytest.raises(ValueError, match="multi_rr report"):
            m.validate_report(report)
