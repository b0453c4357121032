"""Support counts of every report layout equal a straightforward recount, bit for bit.

Each reference below is the plainest way to count (numpy's own column sum,
``np.bincount``, the hash and the Hadamard sign written out per answer); the
kernels in ``ldp.mechanisms.reports`` and the mechanisms must agree with them
on random reports of every family and layout, at the edge sizes of their
blocks, and refuse the same bad reports with the same messages as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ldp
from ldp.mechanisms.hadamard import _BLOCK_ROWS
from ldp.mechanisms.olh import _CHUNK, PRIME
from ldp.mechanisms.reports import _BLOCK_BYTES, _LANE_ROWS

BIT_MECHANISMS = ("oue", "sue", "multi_rr")


def bit_mechanism(name: str, k: int) -> Any:
    return ldp.build({"mechanism": name, "k": k, "epsilon": 1.0})


def block_rows(k: int) -> int:
    """Rows per block of the bit counter for k columns (padded to bytes of 8)."""
    width = -(-k // 8) * 8
    return max(1, _BLOCK_BYTES // (_LANE_ROWS * width)) * _LANE_ROWS


def random_bits(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    return (rng.random((n, k)) < rng.random(k)).astype(np.uint8)


def reference_bit_counts(bits: Any) -> np.ndarray:
    return np.asarray(bits, dtype=np.int64).reshape(-1, bits.shape[1]).sum(axis=0)


BIT_SIZES = [
    (k, n)
    for k in (2, 3, 9, 63, 64, 65, 1000, 1024)
    for n in (0, 1, 2, _LANE_ROWS - 1, _LANE_ROWS, _LANE_ROWS + 1)
] + [
    (1024, block_rows(1024) - 1),
    (1024, block_rows(1024)),
    (1024, block_rows(1024) + 1),
    (9, block_rows(9) - 1),
    (9, block_rows(9)),
    (9, block_rows(9) + 1),
]
MULTI_RR_K_MAX = 64
BIT_CASES = [
    (name, k, n)
    for name in BIT_MECHANISMS
    for k, n in BIT_SIZES
    if name != "multi_rr" or k <= MULTI_RR_K_MAX
]


@pytest.mark.parametrize(("name", "k", "n"), BIT_CASES)
def test_bit_counts_equal_the_column_sum_for_every_array_layout(rng, name, k, n):
    mechanism = bit_mechanism(name, k)
    bits = random_bits(rng, n, k)
    expected = reference_bit_counts(bits)
    layouts = [
        bits,
        bits.astype(np.bool_),
        bits.astype(np.int64),
        bits.astype(np.int8),
        np.asfortranarray(bits),
        np.repeat(bits, 2, axis=1)[:, ::2],  # a strided view
    ]
    for layout in layouts:
        stat = mechanism.aggregate(layout)
        assert stat.n == n
        assert stat.counts.dtype == np.int64
        assert np.array_equal(stat.counts, expected)


@pytest.mark.parametrize("name", BIT_MECHANISMS)
@pytest.mark.parametrize(("k", "n"), [(3, 0), (9, 1), (64, 300), (63, 257)])
def test_bit_counts_of_json_lists_equal_the_column_sum(rng, name, k, n):
    mechanism = bit_mechanism(name, k)
    bits = random_bits(rng, n, k)
    stat = mechanism.aggregate(bits.tolist())
    assert stat.n == n
    assert np.array_equal(stat.counts, reference_bit_counts(bits))


@pytest.mark.parametrize(("name", "k", "n"), BIT_CASES)
def test_packed_rows_count_as_the_unpacked_bits(rng, name, k, n):
    mechanism = bit_mechanism(name, k)
    bits = random_bits(rng, n, k)
    packed = np.packbits(bits, axis=1)
    assert mechanism.aggregate_packed(packed) == mechanism.aggregate(bits)
    assert np.array_equal(
        mechanism.aggregate_packed(packed).counts, reference_bit_counts(bits)
    )


@pytest.mark.parametrize("name", BIT_MECHANISMS)
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.int16])
@pytest.mark.parametrize("bad", [2, 255])
def test_a_bit_above_one_is_refused_with_the_same_message(rng, name, dtype, bad):
    mechanism = bit_mechanism(name, 64)
    bits = random_bits(rng, 3 * _LANE_ROWS, 64).astype(dtype)
    bits[2 * _LANE_ROWS + 1, 17] = bad
    with pytest.raises(ValueError, match=rf"^{name} reports must be bits$"):
        mechanism.aggregate(bits)


@pytest.mark.parametrize("name", BIT_MECHANISMS)
def test_a_negative_bit_is_refused_with_the_same_message(rng, name):
    mechanism = bit_mechanism(name, 9)
    bits = random_bits(rng, 20, 9).astype(np.int64)
    bits[19, 8] = -1
    with pytest.raises(ValueError, match=rf"^{name} reports must be bits$"):
        mechanism.aggregate(bits)


@pytest.mark.parametrize("name", BIT_MECHANISMS)
def test_float_bits_are_refused_with_the_same_message(name):
    mechanism = bit_mechanism(name, 8)
    with pytest.raises(ValueError, match=rf"^{name} reports must be bits$"):
        mechanism.aggregate(np.ones((2, 8)))


@pytest.mark.parametrize("name", BIT_MECHANISMS)
def test_a_wrong_width_is_refused_with_the_same_message(rng, name):
    mechanism = bit_mechanism(name, 8)
    with pytest.raises(ValueError, match=rf"^{name} reports must have shape \(n, 8\)$"):
        mechanism.aggregate(random_bits(rng, 4, 9))


@pytest.mark.parametrize("name", BIT_MECHANISMS)
def test_a_json_bit_of_two_is_refused_with_the_same_message(name):
    mechanism = bit_mechanism(name, 3)
    with pytest.raises(
        ValueError,
        match=rf"^{name} report bit is 2; allowed: the integers 0 or 1$",
    ):
        mechanism.aggregate([[0, 1, 0], [0, 2, 1]])


@pytest.mark.parametrize("name", BIT_MECHANISMS)
def test_packed_rows_with_a_padding_bit_set_are_refused(rng, name):
    mechanism = bit_mechanism(name, 9)
    packed = np.packbits(random_bits(rng, 5, 9), axis=1)
    packed[3, 1] |= 0b0000_0001
    with pytest.raises(ValueError, match="7 padding bits of each row zero"):
        mechanism.aggregate_packed(packed)


@pytest.mark.parametrize("name", BIT_MECHANISMS)
def test_packed_rows_of_the_wrong_width_or_dtype_are_refused(rng, name):
    mechanism = bit_mechanism(name, 9)
    packed = np.packbits(random_bits(rng, 5, 9), axis=1)
    message = rf"^{name} packed reports must be uint8 of shape \(n, 2\)$"
    with pytest.raises(ValueError, match=message):
        mechanism.aggregate_packed(packed[:, :1])
    with pytest.raises(ValueError, match=message):
        mechanism.aggregate_packed(packed.astype(np.int64))


def reference_olh_counts(reports: np.ndarray, k: int, g: int) -> np.ndarray:
    """``C_v = #{i : ((a_i v + b_i) mod P) mod g = y_i}``, one answer at a time."""
    a, b, y = (reports[:, i].astype(np.int64) for i in range(3))
    return np.array(
        [np.count_nonzero(((a * v + b) % PRIME) % g == y) for v in range(k)],
        dtype=np.int64,
    )


@pytest.mark.parametrize("g", [None, 2, 3, 5, 8, 7, 1000, 4096, 65536])
@pytest.mark.parametrize("n", [0, 1, 300])
def test_olh_counts_equal_the_hash_recomputed_per_answer(rng, g, n):
    # With g = 2^16 hash values the integer weights cannot express ε below
    # about 1.86 (ldp.build refuses it and names that minimum), so that case
    # runs at ε = 4.
    spec = {"mechanism": "olh", "k": 40, "epsilon": 4.0 if g == 65536 else 1.0}
    if g is not None:
        spec["g"] = g
    mechanism = ldp.build(spec)
    reports = mechanism.randomize(rng.integers(0, 40, size=n), rng)
    expected = reference_olh_counts(reports, 40, mechanism.g)
    assert np.array_equal(mechanism.aggregate(reports).counts, expected)
    assert np.array_equal(mechanism.aggregate(reports.tolist()).counts, expected)


@pytest.mark.parametrize("g", [4, 5])
def test_olh_counts_with_seeds_next_to_the_prime(rng, g):
    mechanism = ldp.build({"mechanism": "olh", "k": 64, "epsilon": 1.0, "g": g})
    reports = mechanism.randomize(rng.integers(0, 64, size=500), rng)
    reports[:, :2] = rng.integers(PRIME - 4, PRIME, size=(500, 2))
    reports[:5, 0] = 0
    expected = reference_olh_counts(reports, 64, g)
    assert np.array_equal(mechanism.aggregate(reports).counts, expected)


@pytest.mark.parametrize("n", [_CHUNK - 1, _CHUNK, _CHUNK + 1])
def test_olh_counts_across_a_chunk_boundary(rng, n):
    mechanism = ldp.build({"mechanism": "olh", "k": 6, "epsilon": 1.0, "g": 3})
    reports = mechanism.randomize(rng.integers(0, 6, size=n), rng)
    expected = reference_olh_counts(reports, 6, 3)
    assert np.array_equal(mechanism.aggregate(reports).counts, expected)


@pytest.mark.parametrize(
    ("column", "value"), [(0, -1), (0, PRIME), (1, PRIME), (2, 4), (2, -1)]
)
def test_olh_out_of_range_reports_are_refused_with_the_same_message(rng, column, value):
    mechanism = ldp.build({"mechanism": "olh", "k": 8, "epsilon": 1.0})
    reports = mechanism.randomize(rng.integers(0, 8, size=10), rng)
    reports[7, column] = value
    message = rf"^olh reports need a, b in \[0, {PRIME}\) and y in \[0, 4\)$"
    with pytest.raises(ValueError, match=message):
        mechanism.aggregate(reports)


def popcount_parity(values: np.ndarray) -> np.ndarray:
    """Parity of each value's set bits, counted bit by bit (works on numpy 1.26)."""
    as_bytes = np.ascontiguousarray(values, dtype="<u8").view(np.uint8)
    return np.unpackbits(as_bytes).reshape(len(values), 64).sum(axis=1) & 1


def reference_hadamard_counts(reports: np.ndarray, k: int) -> np.ndarray:
    """``C_v = #{i : bit_i = [popcount(j_i AND v) even]}``, one answer at a time."""
    j, bit = reports[:, 0], reports[:, 1]
    return np.array(
        [np.count_nonzero(bit == 1 - popcount_parity(j & v)) for v in range(k)],
        dtype=np.int64,
    )


@pytest.mark.parametrize("k", [2, 3, 16, 17, 1000, 1024])
@pytest.mark.parametrize("n", [0, 1, 2, 500])
def test_hadamard_counts_equal_the_sign_recomputed_per_answer(rng, k, n):
    mechanism = ldp.build({"mechanism": "hadamard", "k": k, "epsilon": 1.0})
    reports = mechanism.randomize(rng.integers(0, k, size=n), rng)
    expected = reference_hadamard_counts(reports, k)
    assert np.array_equal(mechanism.aggregate(reports).counts, expected)
    assert np.array_equal(mechanism.aggregate(reports.tolist()).counts, expected)
    assert np.array_equal(
        mechanism.aggregate(reports.astype(np.int32)).counts, expected
    )


@pytest.mark.parametrize("n", [_BLOCK_ROWS - 1, _BLOCK_ROWS, _BLOCK_ROWS + 1])
def test_hadamard_counts_across_a_block_boundary(rng, n):
    mechanism = ldp.build({"mechanism": "hadamard", "k": 12, "epsilon": 1.0})
    reports = mechanism.randomize(rng.integers(0, 12, size=n), rng)
    expected = reference_hadamard_counts(reports, 12)
    assert np.array_equal(mechanism.aggregate(reports).counts, expected)


@pytest.mark.parametrize(
    ("column", "value"), [(0, -1), (0, 16), (0, -(2**63)), (1, 2), (1, -1)]
)
def test_hadamard_out_of_range_reports_are_refused_with_the_same_message(
    rng, column, value
):
    mechanism = ldp.build({"mechanism": "hadamard", "k": 10, "epsilon": 1.0})
    reports = mechanism.randomize(rng.integers(0, 10, size=_BLOCK_ROWS + 5), rng)
    reports[_BLOCK_ROWS + 2, column] = value
    message = r"^hadamard reports need j in \[0, 16\) and bit 0/1$"
    with pytest.raises(ValueError, match=message):
        mechanism.aggregate(reports)


GRR_BLOCK = _BLOCK_BYTES // 8


@pytest.mark.parametrize("k", [2, 5, 1024])
@pytest.mark.parametrize("n", [0, 1, GRR_BLOCK - 1, GRR_BLOCK, GRR_BLOCK + 1])
def test_grr_counts_equal_bincount_for_every_integer_dtype(rng, k, n):
    mechanism = ldp.build({"mechanism": "grr", "k": k, "epsilon": 1.0})
    reports = mechanism.randomize(rng.integers(0, k, size=n), rng)
    expected = np.bincount(reports, minlength=k)
    for layout in (reports, reports.astype(np.int32), reports.astype(np.uint16)):
        stat = mechanism.aggregate(layout)
        assert stat.n == n
        assert np.array_equal(stat.counts, expected)
    assert np.array_equal(mechanism.aggregate(reports.tolist()).counts, expected)


@pytest.mark.parametrize("value", [-1, 5, 10**15, -(2**63)])
def test_grr_out_of_range_reports_are_refused_with_the_same_message(rng, value):
    mechanism = ldp.build({"mechanism": "grr", "k": 5, "epsilon": 1.0})
    reports = mechanism.randomize(rng.integers(0, 5, size=GRR_BLOCK + 3), rng)
    reports[GRR_BLOCK + 1] = value
    with pytest.raises(ValueError, match=r"^grr reports must lie in \[0, 5\)$"):
        mechanism.aggregate(reports)


def test_grr_unsigned_reports_above_the_int64_range_are_refused():
    mechanism = ldp.build({"mechanism": "grr", "k": 5, "epsilon": 1.0})
    reports = np.array([1, 2**64 - 1], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"^grr reports must lie in \[0, 5\)$"):
        mechanism.aggregate(reports)


def test_grr_json_report_out_of_range_is_refused_with_the_same_message():
    mechanism = ldp.build({"mechanism": "grr", "k": 5, "epsilon": 1.0})
    message = r"^grr report value is 5; allowed: an integer in \[0, 5\)$"
    with pytest.raises(ValueError, match=message):
        mechanism.aggregate([0, 5])
