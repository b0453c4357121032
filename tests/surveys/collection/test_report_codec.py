"""The compact stored form of reports (``surveys.collection.report_codec``).

Every mechanism ldp ships has a stored form; encode then decode gives back the
very JSON report (same ints, same lists, same JSON text) for random reports of
every mechanism, drawn by its own Python reference randomizer; stored rows fold
into exactly the support counts of the JSON reports.
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
from ldp.mechanisms import REGISTRY
from surveys.collection import report_codec

GRID = {"low": "0", "high": "20", "step": "1"}
# Requested specs covering every mechanism; bit mechanisms at widths that end
# inside a byte, on a byte, and at the sizes the storage target names.
SPECS = [
    {
        "mechanism": "forced_response",
        "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
    },
    {"mechanism": "warner", "epsilon": 1.0},
    {"mechanism": "grr", "k": 5, "epsilon": 1.0},
    {"mechanism": "grr", "k": 4096, "epsilon": 2.0},
    {"mechanism": "sue", "k": 2, "epsilon": 1.0},
    {"mechanism": "sue", "k": 9, "epsilon": 1.0},
    {"mechanism": "oue", "k": 8, "epsilon": 1.0},
    {"mechanism": "oue", "k": 64, "epsilon": 1.0},
    {"mechanism": "oue", "k": 1024, "epsilon": 1.0},
    {"mechanism": "olh", "k": 50, "epsilon": 1.0},
    {"mechanism": "olh", "k": 50, "epsilon": 2.0, "g": 2**16},
    {"mechanism": "hadamard", "k": 5, "epsilon": 1.0},
    {"mechanism": "hadamard", "k": 4096, "epsilon": 1.0},
    {"mechanism": "ordinal", "k": 7, "epsilon": 1.0},
    {"mechanism": "geometric", **GRID, "epsilon": 1.0},
    {"mechanism": "gaussian", **GRID, "epsilon": 1.0},
    {"mechanism": "duchi", **GRID, "epsilon": 1.0},
    {"mechanism": "piecewise", **GRID, "epsilon": 1.0},
    {"mechanism": "multi_rr", "k": 12, "epsilon": 1.0},
    {"mechanism": "multi_rr", "k": 64, "epsilon": 4.0},
    {"mechanism": "padding_sampling", "k": 12, "ell": 3, "epsilon": 1.0},
]
MECHANISMS = {spec["mechanism"]: ldp.build(spec) for spec in SPECS}
BUILT = [ldp.build(spec) for spec in SPECS]
IDS = [f"{m.spec['mechanism']}-{m.k}" for m in BUILT]


def _report(mechanism: ldp.Mechanism, answer: int, words: random.Random):
    """One report of ``mechanism`` for an answer, randomized by its reference."""
    draw = lambda: words.getrandbits(32)  # noqa: E731
    if mechanism.spec["mechanism"] in ("multi_rr", "padding_sampling"):
        ell = mechanism.spec.get("ell", mechanism.k)
        chosen = random.Random(answer).sample(range(mechanism.k), answer % (ell + 1))
        return mechanism.randomize_one(sorted(chosen), draw)
    return mechanism.randomize_one(answer % mechanism.k, draw)


def test_every_mechanism_ldp_ships_has_a_stored_form():
    assert set(REGISTRY) == report_codec.MECHANISMS
    assert set(MECHANISMS) == set(REGISTRY)


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
@hypothesis_settings(max_examples=60, deadline=None)
@given(answer=st.integers(0, 2**16), seed=st.integers(0, 2**64))
def test_encode_then_decode_gives_back_the_json_report(mechanism, answer, seed):
    report = _report(mechanism, answer, random.Random(seed))
    mechanism.validate_report(report)
    stored = report_codec.encode(mechanism.spec, report)
    decoded = report_codec.decode(mechanism.spec, stored.value, stored.bits)
    assert decoded == report
    assert json.dumps(decoded) == json.dumps(report)  # ints stay ints, not bools
    # Drivers hand bytea back as a memoryview: it decodes the same.
    if stored.bits is not None:
        view = memoryview(stored.bits)
        assert report_codec.decode(mechanism.spec, None, view) == report


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
def test_each_report_is_stored_in_the_column_its_mechanism_uses(mechanism):
    name = mechanism.spec["mechanism"]
    stored = report_codec.encode(
        mechanism.spec, _report(mechanism, 1, random.Random(2))
    )
    if name in report_codec.BIT_MECHANISMS:
        assert stored.value is None and len(stored.bits) == -(-mechanism.k // 8)
    elif name in report_codec.SEEDED_MECHANISMS:
        assert stored.value is None and len(stored.bits) == 10
    else:
        assert stored.bits is None and isinstance(stored.value, int)


def test_bits_are_packed_big_endian_with_zero_padding():
    spec = MECHANISMS["sue"].spec | {"k": 9}
    stored = report_codec.encode(spec, [1, 0, 0, 0, 0, 0, 0, 1, 1])
    assert stored.bits == bytes([0b1000_0001, 0b1000_0000])


def test_olh_reports_keep_every_seed_up_to_the_prime():
    spec = MECHANISMS["olh"].spec
    report = [2**31 - 2, 0, MECHANISMS["olh"].g - 1]
    stored = report_codec.encode(spec, report)
    assert report_codec.decode(spec, stored.value, stored.bits) == report


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
def test_stored_rows_fold_into_the_counts_of_the_json_reports(mechanism):
    words = random.Random(7)
    reports = [_report(mechanism, answer, words) for answer in range(300)]
    rows = [
        tuple(report_codec.encode(mechanism.spec, r).fields().values()) for r in reports
    ]
    folded = report_codec.stored_counts(mechanism, rows)
    expected = mechanism.aggregate(reports)
    assert folded.n == expected.n == 300
    assert np.array_equal(folded.counts, expected.counts)
    assert folded.spec == expected.spec


@pytest.mark.parametrize("mechanism", BUILT, ids=IDS)
def test_no_rows_fold_into_zero_counts(mechanism):
    folded = report_codec.stored_counts(mechanism, [])
    assert folded.n == 0 and not folded.counts.any()


@pytest.mark.parametrize(
    ("name", "value", "bits"),
    [
        ("grr", None, b"\x01"),
        ("grr", 1, b"\x01"),
        ("oue", 1, None),
        ("oue", None, b"\x01"),  # one byte short of k = 9
        ("olh", None, b"\x00" * 9),
    ],
)
def test_a_stored_row_of_the_wrong_form_is_refused(name, value, bits):
    spec = {**MECHANISMS[name].spec, "k": 9} if name == "oue" else MECHANISMS[name].spec
    with pytest.raises(ValueError, match=f"stored {name} report"):
        report_codec.decode(spec, value, bits)
    with pytest.raises(ValueError, match=f"stored {name} reports"):
        report_codec.stored_array(spec, [(value, bits)])


@pytest.mark.parametrize(
    ("name", "report"),
    [
        ("grr", True),
        ("grr", -1),
        ("grr", [1]),
        ("hadamard", [1, 2]),
        ("hadamard", [1]),
        ("oue", [1, 0]),
        ("oue", [2] * MECHANISMS["oue"].k),
        ("olh", [1, 2]),
        ("olh", [2**32, 0, 0]),
    ],
)
def test_encode_refuses_a_report_of_the_wrong_shape(name, report):
    with pytest.raises(ValueError):
        report_codec.encode(MECHANISMS[name].spec, report)


def test_an_unknown_mechanism_has_no_stored_form():
    with pytest.raises(ValueError, match="no stored form for mechanism 'rappor'"):
        report_codec.encode({"mechanism": "rappor"}, 1)
