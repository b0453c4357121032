"""The compact stored form of reports (``ldp.mechanisms.storage``).

Every registered mechanism has a stored form; encode then decode gives back
the very JSON report (same ints, same lists, same JSON text) for random
reports of every mechanism, drawn by its own Python reference randomizer;
stored rows fold into exactly the support counts of the JSON reports.  Bit
mechanisms are also checked at widths that end inside a byte, on a byte and
at the sizes the storage target names.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import ldp
from ldp.mechanisms.storage import BITS, PACKED_BITS, VALUE
from tests.ldp.mechanisms.registered import FAMILIES, example, report

GRID = {"low": "0", "high": "20", "step": "1"}
WIDE = [
    {"mechanism": "grr", "k": 4096, "epsilon": 2.0},
    {"mechanism": "sue", "k": 2, "epsilon": 1.0},
    {"mechanism": "sue", "k": 9, "epsilon": 1.0},
    {"mechanism": "oue", "k": 8, "epsilon": 1.0},
    {"mechanism": "oue", "k": 64, "epsilon": 1.0},
    {"mechanism": "oue", "k": 1024, "epsilon": 1.0},
    {"mechanism": "olh", "k": 50, "epsilon": 2.0, "g": 2**16},
    {"mechanism": "hadamard", "k": 4096, "epsilon": 1.0},
    {"mechanism": "multi_rr", "k": 64, "epsilon": 4.0},
    {"mechanism": "padding_sampling", "k": 12, "ell": 3, "epsilon": 1.0},
]
BUILT = [example(family) for family in FAMILIES] + [ldp.build(s) for s in WIDE]
IDS = [f"{m.name}-{m.k}" for m in BUILT]


def _stored(mechanism, sent):
    return mechanism.storage.encode(mechanism.spec, sent)


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
@hypothesis_settings(max_examples=60, deadline=None)
@given(answer=st.integers(0, 2**16), seed=st.integers(0, 2**64))
def test_encode_then_decode_gives_back_the_json_report(mechanism, answer, seed):
    sent = report(mechanism, answer, random.Random(seed))
    mechanism.validate_report(sent)
    stored = _stored(mechanism, sent)
    decoded = mechanism.storage.decode(mechanism.spec, stored.value, stored.bits)
    assert decoded == sent
    assert json.dumps(decoded) == json.dumps(sent)  # ints stay ints, not bools
    # Drivers hand binary columns back as a memoryview: it decodes the same.
    if stored.bits is not None:
        view = memoryview(stored.bits)
        assert mechanism.storage.decode(mechanism.spec, None, view) == sent


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
def test_each_report_is_stored_in_the_one_column_its_mechanism_names(mechanism):
    stored = _stored(mechanism, report(mechanism, 1, random.Random(2)))
    if mechanism.storage.column == VALUE:
        assert stored.bits is None and isinstance(stored.value, int)
    else:
        assert mechanism.storage.column == BITS and stored.value is None
        if mechanism.storage is PACKED_BITS:
            assert len(stored.bits) == -(-mechanism.k // 8)


def test_bits_are_packed_big_endian_with_zero_padding():
    spec = {"mechanism": "sue", "k": 9}
    stored = PACKED_BITS.encode(spec, [1, 0, 0, 0, 0, 0, 0, 1, 1])
    assert stored.bits == bytes([0b1000_0001, 0b1000_0000])


def test_olh_reports_keep_every_seed_up_to_the_prime_in_ten_bytes():
    olh = ldp.build({"mechanism": "olh", "k": 50, "epsilon": 1.0})
    sent = [2**31 - 2, 0, olh.g - 1]
    stored = _stored(olh, sent)
    assert len(stored.bits) == 10
    assert olh.storage.decode(olh.spec, stored.value, stored.bits) == sent


def test_a_hadamard_report_is_the_integer_2j_plus_bit():
    hadamard = ldp.build({"mechanism": "hadamard", "k": 5, "epsilon": 1.0})
    assert _stored(hadamard, [6, 1]).value == 13


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
def test_stored_rows_fold_into_the_counts_of_the_json_reports(mechanism):
    rng = random.Random(7)
    reports = [report(mechanism, answer, rng) for answer in range(300)]
    rows = [tuple(_stored(mechanism, r).fields().values()) for r in reports]
    folded = mechanism.aggregate_stored(rows)
    expected = mechanism.aggregate(reports)
    assert folded.n == expected.n == 300
    assert np.array_equal(folded.counts, expected.counts)
    assert folded.spec == expected.spec


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
def test_no_rows_fold_into_zero_counts(mechanism):
    folded = mechanism.aggregate_stored([])
    assert folded.n == 0 and not folded.counts.any()


@pytest.mark.parametrize(
    ("spec", "value", "bits"),
    [
        ({"mechanism": "grr", "k": 5, "epsilon": 1.0}, None, b"\x01"),
        ({"mechanism": "grr", "k": 5, "epsilon": 1.0}, 1, b"\x01"),
        ({"mechanism": "oue", "k": 9, "epsilon": 1.0}, 1, None),
        ({"mechanism": "oue", "k": 9, "epsilon": 1.0}, None, b"\x01"),
        ({"mechanism": "olh", "k": 5, "epsilon": 1.0}, None, b"\x00" * 9),
    ],
)
def test_a_stored_row_of_the_wrong_form_is_refused(spec, value, bits):
    mechanism = ldp.build(spec)
    name = spec["mechanism"]
    with pytest.raises(ValueError, match=f"stored {name} report"):
        mechanism.storage.decode(mechanism.spec, value, bits)
    with pytest.raises(ValueError, match=f"stored {name} reports"):
        mechanism.storage.array(mechanism.spec, [(value, bits)])


@pytest.mark.parametrize(
    ("spec", "sent"),
    [
        ({"mechanism": "grr", "k": 5, "epsilon": 1.0}, True),
        ({"mechanism": "grr", "k": 5, "epsilon": 1.0}, -1),
        ({"mechanism": "grr", "k": 5, "epsilon": 1.0}, [1]),
        ({"mechanism": "hadamard", "k": 5, "epsilon": 1.0}, [1, 2]),
        ({"mechanism": "hadamard", "k": 5, "epsilon": 1.0}, [1]),
        ({"mechanism": "oue", "k": 3, "epsilon": 1.0}, [1, 0]),
        ({"mechanism": "oue", "k": 3, "epsilon": 1.0}, [2, 2, 2]),
        ({"mechanism": "olh", "k": 5, "epsilon": 1.0}, [1, 2]),
        ({"mechanism": "olh", "k": 5, "epsilon": 1.0}, [2**32, 0, 0]),
    ],
)
def test_encode_refuses_a_report_of_the_wrong_shape(spec, sent):
    mechanism = ldp.build(spec)
    with pytest.raises(ValueError):
        mechanism.storage.encode(mechanism.spec, sent)
