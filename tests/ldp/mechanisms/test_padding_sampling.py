"""Padding-and-sampling for multi-select questions (Wang et al., S&P 2018)."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ldp
from ldp.exact import channel_epsilon, log_ratio
from ldp.sampling import CountingDraw, generator_words, injected_words

S32 = 2**32
PROPERTY = settings(max_examples=150, derandomize=True, database=None, deadline=None)
GRID_EPSILON = (0.05, 0.1, 0.5, 1.0, float(np.log(3)), 2.0, 5.0, 10.0)
GRID_K_ELL = [(2, 1), (2, 2), (3, 2), (10, 1), (10, 3), (10, 10), (100, 5), (4096, 1)]
GRID_K_ELL += [(4096, 64), (4096, 4096)]


def build(k: int = 4, ell: int = 2, epsilon: float = 1.0) -> Any:
    return ldp.build(
        {"mechanism": "padding_sampling", "k": k, "ell": ell, "epsilon": epsilon}
    )


def grr_row(w: dict[str, int], items: int, t: int) -> list[int]:
    return [w["keep"] if y == t else w["other"] for y in range(items)]


def channel_row(w: dict[str, int], k: int, ell: int, selected: tuple) -> list[int]:
    """Independent integer weights of P(report | selection), row sum ell * S."""
    padded = sorted(selected) + [k + j for j in range(len(selected), ell)]
    rows = [grr_row(w, k + ell, t) for t in padded]
    return [sum(column) for column in zip(*rows, strict=True)]


@pytest.mark.parametrize(("k", "ell"), GRID_K_ELL)
def test_weights_and_delivered_epsilon_over_the_grid(k: int, ell: int) -> None:
    for epsilon in GRID_EPSILON:
        m = build(k, ell, epsilon)
        w = m.weights
        assert all(type(x) is int and x >= 1 for x in w.values())
        assert m.row_sum == w["keep"] + (k + ell - 1) * w["other"] <= S32
        assert m.epsilon_exact == log_ratio(
            w["keep"] + (ell - 1) * w["other"], ell * w["other"]
        )
        assert 0 <= Decimal(epsilon) - m.epsilon_exact <= Decimal("1e-6")
        assert Decimal(m.epsilon) >= m.epsilon_exact
        assert Decimal(m.epsilon_display) >= m.epsilon_exact
        assert m.epsilon_per_option == m.epsilon
        assert m.epsilon_grr_exact >= m.epsilon_exact


def test_ell_one_is_grr_over_k_plus_one_items() -> None:
    for epsilon in GRID_EPSILON:
        m = build(7, 1, epsilon)
        grr = ldp.build({"mechanism": "grr", "k": 8, "epsilon": epsilon})
        assert m.weights == grr.weights
        assert m.epsilon_exact == grr.epsilon_exact == m.epsilon_grr_exact


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_exact_epsilon_of_the_channel_over_all_selections(
    k: int, epsilon: float
) -> None:
    for ell in range(1, k + 1):
        m = build(k, ell, epsilon)
        selections = [
            c for r in range(ell + 1) for c in itertools.combinations(range(k), r)
        ]
        channel = [channel_row(m.weights, k, ell, x) for x in selections]
        assert all(sum(row) == ell * m.row_sum for row in channel)
        exact = channel_epsilon(channel)
        assert abs(exact - m.epsilon_exact) < Decimal("1e-50")
        # the inner GRR's ln(P/Q) is the whole channel's epsilon only for ell = 1
        if ell == 1:
            assert abs(exact - m.epsilon_grr_exact) < Decimal("1e-50")
        else:
            assert exact < m.epsilon_grr_exact
        # changing one option's membership alone can cost the whole epsilon
        single = [channel_row(m.weights, k, ell, x) for x in ((), (0,))]
        assert abs(channel_epsilon(single) - m.epsilon_exact) < Decimal("1e-50")


def test_randomize_one_follows_the_contract_word_by_word() -> None:
    m = build(4, 3, 1.0)  # items 0..3 options, 4..6 dummies
    keep, other, s = m.weights["keep"], m.weights["other"], m.row_sum
    reject = S32 - (S32 % 3)  # first word rejected by uniform_below(3)
    # j = 1 -> sorted([3, 1])[1] = 3; v < P keeps it
    assert m.randomize_one([3, 1], injected_words([1, keep - 1])) == 3
    assert m.randomize_one([3, 1], injected_words([reject, 1, keep - 1])) == 3
    # j = 0 -> option 1; v = P -> i = 0 < 1 -> 0
    assert m.randomize_one([3, 1], injected_words([0, keep])) == 0
    # j = 2 -> dummy k + 2 = 6; largest v -> i = 5 < 6 -> 5
    assert m.randomize_one([3, 1], injected_words([2, s - 1])) == 5
    assert m.randomize_one([3, 1], injected_words([2, 0])) == 6
    # empty answer: slot j is dummy k + j; i = 4 >= t = 4 -> 5
    assert m.randomize_one([], injected_words([0, keep + 4 * other])) == 5
    assert m.randomize_one([], injected_words([0, keep + 3 * other])) == 3
    # full answer: slot 2 is option 2; i = 2 >= 2 -> 3
    assert m.randomize_one([2, 0, 1], injected_words([5, keep + 2 * other])) == 3


def test_words_consumed_do_not_depend_on_the_answer() -> None:
    m = build(6, 3, 1.0)
    rng = np.random.default_rng(5)
    counts = set()
    for selected in ([], [0], [5, 2], [0, 1, 2]):
        for _ in range(50):
            words = [int(w) for w in rng.integers(0, 2**31, size=4)]
            draw = CountingDraw(injected_words(words))
            m.randomize_one(selected, draw)
            counts.add(draw.count)
    assert counts == {2}


def test_randomize_and_randomize_one_have_the_exact_channel() -> None:
    m = build(4, 2, 3.0)
    selected = [2, 0]
    row = np.array(channel_row(m.weights, 4, 2, (0, 2)), dtype=float)
    expected = row / row.sum()
    n = 20_000
    rng = np.random.default_rng(20261122)
    vector = m.randomize([selected] * n, rng)
    draw = generator_words(rng)
    scalar = np.array([m.randomize_one(selected, draw) for _ in range(n)])
    observed = [np.bincount(r, minlength=6) for r in (vector, scalar)]
    for counts in observed:
        assert stats.chisquare(counts, n * expected).pvalue > 1e-4
    assert stats.chi2_contingency(np.stack(observed)).pvalue > 1e-4


def test_vectorised_slot_choice_matches_the_contract_on_mixed_answers() -> None:
    m = build(5, 3, 2.0)
    answers = [[], [4], [3, 0], [1, 2, 4], [0, 1, 2]]
    n = 4_000
    rng = np.random.default_rng(99)
    reports = m.randomize(answers * n, rng).reshape(n, len(answers))
    for column, answer in enumerate(answers):
        row = np.array(channel_row(m.weights, 5, 3, tuple(answer)), dtype=float)
        counts = np.bincount(reports[:, column], minlength=8)
        assert stats.chisquare(counts, n * row / row.sum()).pvalue > 1e-4


def test_matrix_and_list_answers_randomize_identically() -> None:
    m = build(4, 2, 1.0)
    answers = [[0, 3], [], [1], [2, 1]]
    matrix = np.array([[1, 0, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0]])
    a = m.randomize(answers, np.random.default_rng(3))
    b = m.randomize(matrix, np.random.default_rng(3))
    assert a.shape == (4,) and a.dtype == np.int64
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "answer", [[0, 1, 2], [0, 0], [4], [-1], [True], [1.0], "0", 2, [[1]]]
)
def test_bad_answers_are_rejected(answer: Any) -> None:
    m = build(4, 2, 1.0)
    with pytest.raises(ValueError, match="answer"):
        m.randomize_one(answer, injected_words([0, 0]))
    with pytest.raises(ValueError):
        m.randomize([answer], np.random.default_rng(0))


def test_matrix_rows_with_too_many_selections_are_rejected() -> None:
    m = build(4, 2, 1.0)
    with pytest.raises(ValueError, match="at most 2"):
        m.randomize(np.array([[1, 1, 1, 0]]), np.random.default_rng(0))


def test_aggregates_add_and_count_all_padded_items() -> None:
    m = build(4, 2, 2.0)
    rng = np.random.default_rng(11)
    answers = [[0, 1], [2], [], [3]] * 25
    first = m.randomize(answers, rng)
    second = m.randomize(answers[:40], rng)
    both = np.concatenate([first, second])
    assert m.aggregate(first) + m.aggregate(second) == m.aggregate(both)
    as_json = json.loads(json.dumps(both.tolist()))
    assert m.aggregate(as_json) == m.aggregate(both)
    stat = m.aggregate(both)
    assert stat.n == 140 and stat.counts.shape == (6,)
    assert np.array_equal(stat.counts, np.bincount(both, minlength=6))


@pytest.mark.parametrize(
    ("spec", "field", "fragment"),
    [
        ({"k": 4, "epsilon": 1.0}, "'ell'", "missing"),
        ({"k": 4, "ell": 0, "epsilon": 1.0}, "'ell'", "1 <= ell <= k = 4"),
        ({"k": 4, "ell": 5, "epsilon": 1.0}, "'ell'", "1 <= ell <= k = 4"),
        ({"k": 4, "ell": True, "epsilon": 1.0}, "'ell'", "True"),
        ({"k": 4, "ell": 2.0, "epsilon": 1.0}, "'ell'", "2.0"),
        ({"k": 4097, "ell": 2, "epsilon": 1.0}, "'k'", "k <= 4096"),
        ({"k": 4, "ell": 2}, "'epsilon'", "missing"),
        ({"k": 4, "ell": 2, "epsilon": 0}, "'epsilon'", "0 < epsilon"),
        ({"k": 4, "ell": 2, "epsilon": 1.0, "g": 3}, "'g'", "not allowed"),
    ],
)
def test_validation_errors_name_the_field(
    spec: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(ValueError) as error:
        ldp.build({"mechanism": "padding_sampling", **spec})
    assert field in str(error.value) and fragment in str(error.value)


def test_ell_is_not_a_field_of_single_choice_mechanisms() -> None:
    with pytest.raises(ValueError, match="'ell'"):
        ldp.build({"mechanism": "grr", "k": 4, "ell": 2, "epsilon": 1.0})


def test_compiled_spec_round_trips_and_refuses_drift() -> None:
    m = build(9, 3, 1.5)
    spec = json.loads(json.dumps(m.spec))
    assert set(spec) == {"version", "mechanism", "k", "epsilon", "ell", "weights"}
    assert ldp.build(spec).spec == m.spec
    with pytest.raises(ValueError, match="weights"):
        ldp.build({**spec, "weights": {"keep": 2, "other": 1}})


@PROPERTY
@given(report=st.integers(0, 5))
def test_every_possible_report_is_accepted(report: int) -> None:
    build(4, 2, 1.0).validate_report(report)


ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(-2, 8) | st.text(),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=6,
)


@PROPERTY
@given(report=ANY_JSON)
def test_anything_else_is_rejected(report: Any) -> None:
    m = build(4, 2, 1.0)
    if type(report) is int and 0 <= report < 6:
        m.validate_report(report)
    else:
        with pytest.raises(ValueError, match="padding_sampling report"):
            m.validate_report(report)
