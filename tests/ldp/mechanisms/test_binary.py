"""Forced response and Warner: hand-computed reports, p*, q*, channel."""

from __future__ import annotations

import numpy as np

import ldp
from ldp.sampling import WORD_RANGE, injected_words

COIN = {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}


def coin():
    return ldp.build({"mechanism": "forced_response", "design": COIN})


def test_coin_design_words_0_and_1_tell_the_truth():
    mechanism = coin()
    for answer in (0, 1):
        assert mechanism.randomize_one(answer, injected_words([0])) == answer
        assert mechanism.randomize_one(answer, injected_words([1])) == answer


def test_coin_design_word_2_forces_yes_and_word_3_forces_no():
    mechanism = coin()
    for answer in (0, 1):
        assert mechanism.randomize_one(answer, injected_words([2])) == 1
        assert mechanism.randomize_one(answer, injected_words([3])) == 0


def test_coin_design_reduces_large_words_mod_4():
    assert coin().randomize_one(0, injected_words([WORD_RANGE - 2])) == 1


def test_forced_response_support_probabilities_are_asymmetric():
    mechanism = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": 0.7, "forced_yes": 0.2, "forced_no": 0.1},
        }
    )
    assert mechanism.weights == {"truthful": 7, "forced_yes": 2, "forced_no": 1}
    assert np.allclose(mechanism.p_star, [0.8, 0.9])
    assert np.allclose(mechanism.q_star, [0.1, 0.2])
    assert mechanism.spec["design"] == {
        "truthful": "7/10",
        "forced_yes": "1/5",
        "forced_no": "1/10",
    }


def test_forced_response_channel_rows_sum_to_one():
    mechanism = coin()
    assert np.allclose(mechanism.channel_matrix(), [[0.75, 0.25], [0.25, 0.75]])


def test_warner_keeps_answer_below_keep_weight_and_flips_at_it():
    mechanism = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    keep = mechanism.weights["keep"]
    assert mechanism.randomize_one(1, injected_words([keep - 1])) == 1
    assert mechanism.randomize_one(1, injected_words([keep])) == 0
    assert mechanism.randomize_one(0, injected_words([keep])) == 1


def test_warner_rejects_words_at_the_limit_and_uses_the_next():
    mechanism = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    total = mechanism.weights["keep"] + mechanism.weights["flip"]
    limit = WORD_RANGE - WORD_RANGE % total
    assert mechanism.randomize_one(0, injected_words([limit, 0])) == 0


def test_warner_keep_probability_is_e_eps_over_one_plus_e_eps():
    mechanism = ldp.build({"mechanism": "warner", "epsilon": 2.0})
    assert np.allclose(mechanism.p_star, np.exp(2) / (1 + np.exp(2)))
    assert np.allclose(mechanism.channel_matrix().sum(axis=1), 1)


def test_k_is_compiled_as_2_for_binary_mechanisms():
    assert ldp.build({"mechanism": "warner", "epsilon": 1.0}).spec["k"] == 2
    assert coin().spec["k"] == 2
