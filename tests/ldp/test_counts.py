"""Support counts are checked against their spec before anything is estimated."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.counts import SupportCounts

GRR = {"mechanism": "grr", "k": 5, "epsilon": 1.0}


def _grr_data(**changes):
    mechanism = ldp.build(GRR)
    data = mechanism.aggregate([0, 1, 2, 2, 4]).to_dict()
    return mechanism, {**data, **changes}


def test_from_dict_refuses_counts_of_the_wrong_length_for_the_spec():
    _, data = _grr_data(counts=[1, 1, 3])
    with pytest.raises(
        ValueError, match="3 counts for a grr spec that aggregates to 5"
    ):
        SupportCounts.from_dict(data)


def test_estimate_refuses_counts_of_the_wrong_length_built_directly():
    mechanism, _ = _grr_data()
    stat = SupportCounts(5, np.array([1, 1, 3]), mechanism.spec)
    with pytest.raises(ValueError, match="aggregates to 5"):
        mechanism.estimate(stat)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([1, 1, 2, -1, 2], r"in \[0, n=5\]"),
        ([1.5, 1, 1, 0.5, 1], "flat list of integers"),
        ([True, 1, 1, 1, 1], "flat list of integers"),
        (["1", 1, 1, 1, 1], "flat list of integers"),
        ([[1, 1, 1, 1, 1]], "flat list of integers"),
        ([0, 0, 0, 0, 6], r"in \[0, n=5\]"),
    ],
)
def test_from_dict_refuses_counts_that_are_not_integers_in_0_to_n(counts, message):
    _, data = _grr_data(counts=counts)
    with pytest.raises(ValueError, match=message):
        SupportCounts.from_dict(data)


@pytest.mark.parametrize("n", [-1, 2.0, True, "5", None])
def test_from_dict_refuses_an_n_that_is_not_a_non_negative_integer(n):
    _, data = _grr_data(n=n)
    with pytest.raises(ValueError, match="'n'"):
        SupportCounts.from_dict(data)


def test_from_dict_refuses_an_invalid_spec():
    _, data = _grr_data(spec={"mechanism": "grr", "k": 1, "epsilon": 1.0})
    with pytest.raises(ValueError, match="spec field 'k'"):
        SupportCounts.from_dict(data)


def test_from_dict_refuses_missing_or_extra_fields():
    _, data = _grr_data()
    with pytest.raises(ValueError, match="exactly 'n', 'counts' and 'spec'"):
        SupportCounts.from_dict({**data, "extra": 1})


def test_support_counts_of_an_oracle_need_not_sum_to_n():
    oue = ldp.build({"mechanism": "oue", "k": 4, "epsilon": 1.0})
    stat = SupportCounts.from_dict({"n": 3, "counts": [3, 3, 3, 0], "spec": oue.spec})
    assert stat.counts.sum() == 9
    assert np.isfinite(oue.estimate(stat).estimate).all()


def test_a_histogram_not_summing_to_n_loads_but_is_never_estimated():
    # verify_tallies must read a damaged tally to report it; estimate refuses.
    mechanism, data = _grr_data(counts=[1, 1, 1, 1, 2])
    stat = SupportCounts.from_dict(data)
    with pytest.raises(ValueError, match="sum to 6, not to n=5"):
        mechanism.estimate(stat)
