"""Optimized local hashing: exact collision probability, contract, speed."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

import ldp
from ldp.mechanisms.olh import PRIME, collision_probability, default_g
from ldp.sampling import injected_words


@pytest.mark.parametrize(("prime", "g"), [(13, 3), (17, 4), (11, 5)])
def test_collision_probability_matches_enumeration_of_all_seeds(prime, g):
    collisions = sum(
        ((a * 1 + b) % prime) % g == ((a * 4 + b) % prime) % g
        for a in range(prime)
        for b in range(prime)
    )
    assert collision_probability(g, prime) == Fraction(collisions, prime * prime)


def test_collision_probability_is_not_one_over_g():
    assert collision_probability(4) > Fraction(1, 4)


def test_q_star_uses_the_exact_collision_probability():
    mechanism = ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0})
    w = mechanism.weights
    total = w["keep"] + (w["g"] - 1) * w["other"]
    p = Fraction(w["keep"], total)
    c = collision_probability(w["g"])
    expected = c * p + (1 - c) * Fraction(w["other"], total)
    assert mechanism.q_star[0] == float(expected)


@pytest.mark.parametrize(("epsilon", "g"), [(1.0, 4), (2.0, 8), (10.0, 22027)])
def test_default_g_is_rounded_e_eps_plus_one(epsilon, g):
    assert default_g(epsilon) == g


def test_explicit_g_is_kept_in_spec_and_weights():
    mechanism = ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0, "g": 7})
    assert mechanism.spec["g"] == 7
    assert mechanism.weights["g"] == 7


def test_randomize_one_hashes_with_seeds_drawn_first():
    mechanism = ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0})
    a, b = 123456789, 987654321
    h = ((a * 3 + b) % PRIME) % 4
    assert mechanism.randomize_one(3, injected_words([a, b, 0])) == [a, b, h]
    keep = mechanism.weights["keep"]
    others = [y for y in range(4) if y != h]
    assert mechanism.randomize_one(3, injected_words([a, b, keep])) == [a, b, others[0]]


@pytest.mark.slow  # a million reports
def test_aggregates_a_million_reports_over_1024_answers_in_seconds(rng):
    mechanism = ldp.build({"mechanism": "olh", "k": 1024, "epsilon": 1.0})
    reports = mechanism.randomize(rng.integers(0, 1024, size=10**6), rng)
    start = time.perf_counter()
    stat = mechanism.aggregate(reports)
    assert time.perf_counter() - start < 30
    assert stat.n == 10**6
    assert abs(mechanism.estimate(stat).estimate.sum() - 1) < 0.2


def test_one_report_takes_exactly_three_uniform_below_draws():
    # Words far below every rejection limit are each accepted at once, so the
    # number of words read is the number of uniform_below calls.
    mechanism = ldp.build({"mechanism": "olh", "k": 5, "epsilon": 1.0})
    words = iter(range(1, 100))
    read = []

    def draw() -> int:
        read.append(next(words))
        return read[-1]

    report = mechanism.randomize_one(3, draw=draw)
    assert len(report) == 3
    assert read == [1, 2, 3]
    assert "three ``uniform_below`` calls" in (mechanism.randomize_one.__doc__ or "")
