"""The device's ε ceilings: one pair of values, in the shipped module and in ldp."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import ldp
from ldp.spec import ceilings
from ldp.spec.ratio import likelihood_ratio, ratio_display

ROOT = Path(__file__).resolve().parents[3]
RANDOMIZER = ROOT / "ldp" / "js" / "randomizer.js"


def shipped_constant(name: str) -> int:
    match = re.search(
        rf"^export const {name} = (\d+);$",
        RANDOMIZER.read_text(encoding="utf-8"),
        re.MULTILINE,
    )
    assert match, f"{name} is not a plain integer constant in randomizer.js"
    return int(match.group(1))


def test_question_ceiling_is_the_one_the_shipped_module_enforces():
    assert (
        shipped_constant("EPSILON_CEILING_QUESTION")
        == ceilings.EPSILON_CEILING_QUESTION
        == 5
    )


def test_survey_ceiling_is_the_one_the_shipped_module_enforces():
    assert (
        shipped_constant("EPSILON_CEILING_SURVEY")
        == ceilings.EPSILON_CEILING_SURVEY
        == 10
    )


def test_question_ceiling_test_is_strictly_above_five():
    assert not ceilings.above_question_ceiling(Decimal(5))
    assert ceilings.above_question_ceiling(Decimal("5.000000001"))


def test_survey_ceiling_test_is_strictly_above_ten():
    assert not ceilings.above_survey_ceiling(Decimal(10))
    assert ceilings.above_survey_ceiling(Decimal("10.000000001"))


def test_ratio_display_equals_the_delivered_epsilon_display():
    for request in (
        {"mechanism": "warner", "epsilon": 4.9},
        {"mechanism": "sue", "k": 7, "epsilon": 3.3},
        {"mechanism": "multi_rr", "k": 5, "epsilon": 2.5},
        {"mechanism": "padding_sampling", "k": 9, "ell": 4, "epsilon": 1.7},
        {"mechanism": "gaussian", "low": "0", "high": "9", "step": "1", "epsilon": 2},
    ):
        mechanism = ldp.build({"version": 1, **request})
        assert ratio_display(likelihood_ratio(mechanism.spec)) == (
            mechanism.epsilon_display
        )
