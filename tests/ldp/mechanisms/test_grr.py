"""Generalized randomized response: hand-computed reports and the channel."""

from __future__ import annotations

import numpy as np

import ldp
from ldp.sampling import injected_words


def grr(k=5, epsilon=1.0):
    return ldp.build({"mechanism": "grr", "k": k, "epsilon": epsilon})


def test_word_below_keep_weight_reports_the_answer():
    mechanism = grr()
    keep = mechanism.weights["keep"]
    assert mechanism.randomize_one(3, injected_words([0])) == 3
    assert mechanism.randomize_one(3, injected_words([keep - 1])) == 3


def test_other_answers_are_listed_in_order_skipping_the_true_one():
    mechanism = grr()
    keep, other = mechanism.weights["keep"], mechanism.weights["other"]
    reports = [
        mechanism.randomize_one(2, injected_words([keep + i * other])) for i in range(4)
    ]
    assert reports == [0, 1, 3, 4]


def test_last_word_of_each_other_block_stays_in_that_block():
    mechanism = grr()
    keep, other = mechanism.weights["keep"], mechanism.weights["other"]
    assert mechanism.randomize_one(0, injected_words([keep + other - 1])) == 1
    assert mechanism.randomize_one(0, injected_words([keep + 4 * other - 1])) == 4


def test_keep_probability_matches_wang_et_al():
    e = np.exp(1.0)
    mechanism = grr()
    assert np.allclose(mechanism.p_star, e / (e + 4))
    assert np.allclose(mechanism.q_star, 1 / (e + 4))


def test_channel_has_keep_on_the_diagonal_and_rows_summing_to_one():
    mechanism = grr(k=4)
    channel = mechanism.channel_matrix()
    assert np.allclose(channel.sum(axis=1), 1)
    assert np.allclose(np.diag(channel), mechanism.p_star)
