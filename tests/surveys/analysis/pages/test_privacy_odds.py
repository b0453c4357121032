"""The privacy page's odds sentence: exact figures from the weights, rounded
against the respondent, in the reader's language."""

from __future__ import annotations

import math

import pytest
from django.utils import translation

import ldp
from surveys.analysis.pages.privacy import odds_words


def warner(epsilon: float) -> dict:
    return ldp.build({"version": 1, "mechanism": "warner", "epsilon": epsilon}).spec


@pytest.mark.parametrize(
    ("epsilon", "percent", "factor"),
    [(math.log(3), "75%", "3."), (1.0, "74%", "2.8."), (5.0, "99.4%", "150.")],
)
def test_the_odds_are_the_exact_ratios_rounded_up(epsilon, percent, factor):
    with translation.override("en"):
        words = odds_words(warner(epsilon))
    assert f"at most {percent} sure" in words
    assert words.endswith(f"by at most {factor}")


@pytest.mark.parametrize(
    ("language", "words"),
    [("es", "un 99,4\u00a0% seguro"), ("fr", "sûr à 99,4\u00a0%")],
)
def test_the_odds_sentence_is_in_the_readers_language(language, words):
    with translation.override(language):
        assert words in odds_words(warner(5.0)).replace(" %", "\u00a0%")
