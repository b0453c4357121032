"""Unary encodings (SUE = basic one-time RAPPOR, OUE)."""

from __future__ import annotations

import math

import numpy as np

import ldp
from ldp.sampling import injected_words


def test_bits_follow_the_contract_thresholds_word_by_word():
    mechanism = ldp.build({"mechanism": "oue", "k": 3, "epsilon": 1.0})
    a1, a0 = mechanism.weights["one_if_one"], mechanism.weights["one_if_zero"]
    words = [a0 - 1, a1 - 1, a0]  # answer 1: bit 1 uses A1, the others A0
    assert mechanism.randomize_one(1, injected_words(words)) == [1, 1, 0]
    assert mechanism.randomize_one(0, injected_words(words)) == [1, 0, 0]


def test_sue_is_symmetric():
    mechanism = ldp.build({"mechanism": "sue", "k": 4, "epsilon": 2.0})
    w = mechanism.weights
    assert w["one_if_one"] + w["one_if_zero"] == w["total"] == 2**32
    half = math.exp(1.0)
    assert np.allclose(mechanism.p_star, half / (half + 1))


def test_oue_keeps_a_one_with_probability_one_half():
    mechanism = ldp.build({"mechanism": "oue", "k": 4, "epsilon": 2.0})
    assert np.allclose(mechanism.p_star, 0.5, atol=1e-8)
    assert np.allclose(mechanism.q_star, 1 / (math.exp(2.0) + 1))


def test_unary_reports_have_one_bit_per_answer(rng):
    mechanism = ldp.build({"mechanism": "sue", "k": 7, "epsilon": 1.0})
    reports = mechanism.randomize(np.arange(7), rng)
    assert reports.shape == (7, 7)
    assert set(np.unique(reports)) <= {0, 1}
