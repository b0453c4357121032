"""Property tests: validate_report accepts exactly the possible outputs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ldp
from tests.ldp.conftest import SPECS

PROPERTY = settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def is_int(value: Any) -> bool:
    return type(value) is int


def possible(mechanism: ldp.Mechanism, report: Any) -> bool:
    """Independent statement of each mechanism's output domain."""
    w = mechanism.weights
    if mechanism.name in ("forced_response", "warner", "grr"):
        return is_int(report) and 0 <= report < mechanism.k
    if not isinstance(report, list) or not all(is_int(x) for x in report):
        return False
    if mechanism.name in ("sue", "oue"):
        return len(report) == mechanism.k and all(x in (0, 1) for x in report)
    if mechanism.name == "olh":
        return (
            len(report) == 3
            and all(0 <= x < w["prime"] for x in report[:2])
            and 0 <= report[2] < w["g"]
        )
    return len(report) == 2 and 0 <= report[0] < w["K"] and report[1] in (0, 1)


def valid_reports(mechanism: ldp.Mechanism) -> st.SearchStrategy:
    w = mechanism.weights
    k = mechanism.k
    if mechanism.name in ("forced_response", "warner", "grr"):
        return st.integers(0, k - 1)
    if mechanism.name in ("sue", "oue"):
        return st.lists(st.integers(0, 1), min_size=k, max_size=k)
    if mechanism.name == "olh":
        seed = st.integers(0, w["prime"] - 1)
        return st.tuples(seed, seed, st.integers(0, w["g"] - 1)).map(list)
    return st.tuples(st.integers(0, w["K"] - 1), st.integers(0, 1)).map(list)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True),
    st.text(max_size=5),
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=3), inner)
    ),
    max_leaves=12,
)


@pytest.fixture(params=sorted(SPECS), scope="module")
def built(request: pytest.FixtureRequest) -> ldp.Mechanism:
    return ldp.build(SPECS[request.param])


def test_every_possible_report_is_accepted(built):
    @PROPERTY
    @given(valid_reports(built))
    def check(report):
        built.validate_report(report)

    check()


def test_junk_is_rejected_unless_it_is_a_possible_report(built):
    @PROPERTY
    @given(st.one_of(JUNK, valid_reports(built).map(lambda r: [r, r])))
    def check(report):
        if possible(built, report):
            built.validate_report(report)
        else:
            with pytest.raises(ValueError, match=built.name):
                built.validate_report(report)

    check()


def test_almost_valid_reports_are_rejected(built):
    def mutate(report: Any, data: st.DataObject) -> Any:
        if not isinstance(report, list):
            return data.draw(
                st.sampled_from(
                    [report + built.k, -1 - report, float(report), report == 1]
                )
            )
        index = data.draw(st.integers(0, len(report) - 1))
        choice = data.draw(st.integers(0, 4))
        changed = list(report)
        if choice == 0:
            return changed[:-1]
        if choice == 1:
            return [*changed, 0]
        if choice == 2:
            changed[index] = -1
        elif choice == 3:
            changed[index] = bool(changed[index] % 2)
        else:
            changed[index] = [changed[index]]
        return changed

    @PROPERTY
    @given(valid_reports(built), st.data())
    def check(report, data):
        bad = mutate(report, data)
        if possible(built, bad):  # e.g. True -> 1 is a different value, skip
            return
        with pytest.raises(ValueError, match=built.name):
            built.validate_report(bad)

    check()
