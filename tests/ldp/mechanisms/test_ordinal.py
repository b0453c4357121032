"""Ordinal (exponential mechanism): hand-computed reports, shape, validation."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.sampling import injected_words


def test_rows_are_symmetric_and_peak_at_the_answer():
    mechanism = ldp.build({"mechanism": "ordinal", "k": 7, "epsilon": 2.0})
    rows = np.asarray(mechanism.weights["rows"])
    assert mechanism.weights["total"] == 2**32
    assert np.all(rows.sum(axis=1) == 2**32)
    for x in range(7):
        assert np.argmax(rows[x]) == x
        # Decreasing away from the answer on both sides.
        assert np.all(np.diff(rows[x, x:]) < 0)
        assert np.all(np.diff(rows[x, : x + 1]) > 0)
    # Mirror symmetry x -> k − 1 − x (up to one unit of rounding).
    assert np.abs(rows - rows[::-1, ::-1]).max() <= 1


def test_randomize_one_with_injected_words_hand_computed():
    mechanism = ldp.build({"mechanism": "ordinal", "k": 3, "epsilon": 1.0})
    rows = mechanism.weights["rows"]
    # total = 2^32: no word is ever rejected, v = word.
    for x in range(3):
        a, b, _ = rows[x]
        cases = {0: 0, a - 1: 0, a: 1, a + b - 1: 1, a + b: 2, 2**32 - 1: 2}
        for word, report in cases.items():
            assert mechanism.randomize_one(x, injected_words([word])) == report


def test_randomize_one_k2_is_randomized_response():
    mechanism = ldp.build({"mechanism": "ordinal", "k": 2, "epsilon": np.log(3)})
    (keep, flip), (flip2, keep2) = mechanism.weights["rows"]
    assert abs(keep - keep2) <= 1 and abs(flip - flip2) <= 1  # rounding only
    assert keep / flip2 <= 3 and keep2 / flip <= 3
    assert keep / flip2 == pytest.approx(3, rel=1e-8)
    assert mechanism.randomize_one(1, injected_words([0])) == 0
    assert mechanism.randomize_one(1, injected_words([flip2 - 1])) == 0
    assert mechanism.randomize_one(1, injected_words([flip2])) == 1
    assert mechanism.randomize_one(0, injected_words([keep - 1])) == 0
    assert mechanism.randomize_one(0, injected_words([keep])) == 1


def test_compiled_spec_keeps_k_and_epsilon():
    mechanism = ldp.build({"mechanism": "ordinal", "k": 4, "epsilon": 0.5})
    spec = mechanism.spec
    assert spec["k"] == 4 and spec["epsilon"] == 0.5
    assert set(spec) == {"version", "mechanism", "k", "epsilon", "weights"}
    assert set(spec["weights"]) == {"rows", "total"}
    assert mechanism.output_values().tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"mechanism": "ordinal", "k": 102, "epsilon": 1.0}, "'k'"),
        ({"mechanism": "ordinal", "k": 1, "epsilon": 1.0}, "'k'"),
        ({"mechanism": "ordinal", "k": True, "epsilon": 1.0}, "'k'"),
        ({"mechanism": "ordinal", "epsilon": 1.0}, "'k'"),
        ({"mechanism": "ordinal", "k": 5}, "'epsilon'"),
        ({"mechanism": "ordinal", "k": 5, "epsilon": 0}, "'epsilon'"),
        ({"mechanism": "ordinal", "k": 5, "epsilon": 1.0, "low": "0"}, "low"),
    ],
)
def test_invalid_ordinal_specs_name_the_field(spec, field):
    with pytest.raises(ValueError, match=field):
        ldp.build(spec)


def test_the_ordinal_mechanism_beats_grr_for_the_mean_of_a_scale():
    # Noise concentrated on nearby levels: smaller variance of the mean.
    k, epsilon = 7, 1.0
    ordinal = ldp.build({"mechanism": "ordinal", "k": k, "epsilon": epsilon})
    grr = ldp.build({"mechanism": "grr", "k": k, "epsilon": epsilon})
    q = grr.channel_matrix()
    s = np.linalg.solve(q, np.arange(k, dtype=float))
    grr_variance = (q @ s**2 - (q @ s) ** 2).max()
    assert ordinal.mean_variance().max() < grr_variance
