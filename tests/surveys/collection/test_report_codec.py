"""Reports are stored in the form their mechanism declares (``report_codec``).

The stored forms themselves are tested with ldp (tests/ldp/mechanisms/
test_storage.py); here: the codec finds every registered mechanism's form
through the registry, round trips a report of each, folds rows into the
counts of the JSON reports, and refuses a spec naming no known mechanism.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from surveys.collection import report_codec
from tests.ldp.mechanisms.registered import FAMILIES, IDS, example, report


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_every_registered_mechanism_round_trips_through_its_stored_form(family):
    mechanism = example(family)
    rng = random.Random(5)
    reports = [report(mechanism, i, rng) for i in range(50)]
    rows = [report_codec.encode(mechanism.spec, r) for r in reports]
    assert report_codec.has_stored_form(mechanism.spec)
    assert [report_codec.decode(mechanism.spec, s.value, s.bits) for s in rows] == (
        reports
    )
    keyed = [(i, s.value, s.bits) for i, s in enumerate(rows)]
    assert dict(report_codec.decode_rows(mechanism.spec, keyed)) == dict(
        enumerate(reports)
    )
    pairs = [(s.value, s.bits) for s in rows]
    folded = report_codec.stored_counts(mechanism, pairs)
    assert np.array_equal(folded.counts, mechanism.aggregate(reports).counts)


def test_an_unknown_mechanism_has_no_stored_form():
    assert not report_codec.has_stored_form({"mechanism": "rappor"})
    with pytest.raises(ValueError, match="no stored form for mechanism 'rappor'"):
        report_codec.encode({"mechanism": "rappor"}, 1)
