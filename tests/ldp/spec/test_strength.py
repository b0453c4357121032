"""The server's strength labels are the device's: its limits, read from its module."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from ldp.spec import strength
from ldp.spec.device import device_source, shipped_limits


def test_the_limits_are_the_table_the_shipped_wording_module_declares():
    block = re.search(
        r"const STRENGTH_LIMITS = \[(.*?)\];", device_source("wording.js"), re.S
    )
    assert block is not None
    declared = re.findall(r'"(\w+)", (\d+)n', block.group(1))
    assert tuple((k, int(v)) for k, v in declared) == strength.STRENGTH_LIMITS


@pytest.mark.parametrize(
    ("ratio", "key"),
    [
        # The device's own examples (tests/js/wording.test.mjs).
        (Fraction(3), "strong"),
        (Fraction(301, 100), "moderate"),
        (Fraction(9), "moderate"),
        (Fraction(99), "weak"),
        (Fraction(100), "veryWeak"),
    ],
)
def test_a_ratio_gets_the_label_the_device_gives_it(ratio, key):
    assert strength.strength(ratio) == key


@pytest.mark.parametrize(
    ("ratio", "warned"),
    [(Fraction(9), False), (Fraction(901, 100), True), (Fraction(10**6), True)],
)
def test_weak_or_worse_starts_just_above_the_moderate_limit(ratio, warned):
    assert strength.weak_or_worse(ratio) is warned


def test_a_table_the_module_does_not_declare_is_refused():
    with pytest.raises(LookupError):
        shipped_limits("wording.js", "NO_SUCH_TABLE")


def test_the_survey_ratio_is_the_product_of_its_questions_ratios():
    import ldp

    specs = [
        ldp.build({"version": 1, "mechanism": "warner", "epsilon": 1.0}).spec,
        ldp.build({"version": 1, "mechanism": "warner", "epsilon": 1.5}).spec,
    ]
    from ldp.spec.ratio import likelihood_ratio

    expected = likelihood_ratio(specs[0]) * likelihood_ratio(specs[1])
    assert strength.total_ratio(specs) == expected
