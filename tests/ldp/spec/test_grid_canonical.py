"""Numeric grids compile to plain decimal strings the browser can read."""

import re

import pytest

import ldp

PLAIN_DECIMAL = re.compile(r"^-?\d+(\.\d+)?$")


@pytest.mark.parametrize(
    ("low", "high", "step"),
    [("0", "1e1", "1"), ("0", "100", "1e1"), (".5", "5E-0", "5E-1"), (0, 40, 1)],
)
def test_compiled_grid_fields_are_plain_decimals_without_exponent(low, high, step):
    spec = ldp.build(
        {"mechanism": "duchi", "low": low, "high": high, "step": step, "epsilon": 1}
    ).spec
    for field in ("low", "high", "step"):
        assert PLAIN_DECIMAL.match(spec[field]), spec[field]


def test_exponent_grid_compiles_to_the_same_spec_as_its_plain_form():
    exponent = ldp.build(
        {"mechanism": "geometric", "low": "0", "high": "1e1", "step": "1", "epsilon": 1}
    )
    plain = ldp.build(
        {"mechanism": "geometric", "low": "0", "high": "10", "step": "1", "epsilon": 1}
    )
    assert exponent.spec == plain.spec
