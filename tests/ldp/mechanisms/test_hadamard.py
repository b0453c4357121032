"""Hadamard response: the transform, q* = 1/2 and the contract."""

from __future__ import annotations

import numpy as np

import ldp
from ldp.mechanisms.hadamard import walsh_hadamard
from ldp.sampling import injected_words


def hadamard_matrix(size):
    # Naive popcount through bin(), independent of the code under test.
    return np.array(
        [
            [1 if bin(j & v).count("1") % 2 == 0 else -1 for v in range(size)]
            for j in range(size)
        ]
    )


def test_fast_transform_equals_the_explicit_matrix_product(rng):
    values = rng.integers(-50, 50, size=16)
    assert np.array_equal(walsh_hadamard(values), hadamard_matrix(16) @ values)


def test_rows_agree_for_half_of_j_so_q_star_is_one_half():
    h = hadamard_matrix(8)
    for x in range(8):
        for v in range(8):
            if x != v:
                assert np.sum(h[:, x] == h[:, v]) == 4
    mechanism = ldp.build({"mechanism": "hadamard", "k": 5, "epsilon": 1.0})
    assert np.all(mechanism.q_star == 0.5)


def test_order_is_the_least_power_of_two_at_least_k():
    for k, order in [(2, 2), (3, 4), (4, 4), (5, 8), (1000, 1024), (4096, 4096)]:
        spec = {"mechanism": "hadamard", "k": k, "epsilon": 1.0}
        assert ldp.build(spec).weights["K"] == order


def test_randomize_one_reports_row_and_kept_or_flipped_parity():
    mechanism = ldp.build({"mechanism": "hadamard", "k": 5, "epsilon": 1.0})
    keep = mechanism.weights["keep"]
    # j = 3, x = 1: popcount(3 & 1) = 1 is odd, so s = 0.
    assert mechanism.randomize_one(1, injected_words([3, 0])) == [3, 0]
    assert mechanism.randomize_one(1, injected_words([3, keep])) == [3, 1]
    # j = 3, x = 4: popcount(0) = 0 is even, so s = 1.
    assert mechanism.randomize_one(4, injected_words([3, 0])) == [3, 1]


def test_parity_bit_matches_a_naive_popcount_for_every_pair_below_2_to_13():
    from ldp.mechanisms.hadamard import _parity_bit

    j, x = np.meshgrid(np.arange(2**13), np.arange(0, 2**13, 37), indexing="ij")
    naive = np.vectorize(lambda a: 1 - bin(int(a)).count("1") % 2)(j & x)
    assert np.array_equal(_parity_bit(j, x), naive)
    assert _parity_bit(7, 5) == 1 and _parity_bit(7, 4) == 0
