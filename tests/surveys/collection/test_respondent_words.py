"""What respondents are told about each mechanism: one place, every mechanism."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from ldp.mechanisms import REGISTRY
from surveys.authoring.catalogue import CATALOGUE
from surveys.collection.respondent_words import (
    NUMERIC_WHY,
    RESPONDENT_WORDS,
    how_randomized,
    receipt_why,
)
from tests.surveys.collection.conftest import questions


def test_every_mechanism_ldp_registers_has_respondent_words():
    assert set(REGISTRY) <= set(RESPONDENT_WORDS)
    for name, words in RESPONDENT_WORDS.items():
        assert words.how.startswith(("your device", "a coin-flip")), name


def test_respondent_words_never_use_the_researchers_label():
    for name, words in RESPONDENT_WORDS.items():
        assert CATALOGUE[name].label.lower() not in words.how.lower(), name


def test_numeric_receipts_say_only_averages_are_meaningful():
    for name in ("geometric", "gaussian", "duchi", "piecewise"):
        assert receipt_why(name) == NUMERIC_WHY


def test_unknown_mechanism_is_named_and_gets_no_receipt_note():
    assert how_randomized("not_a_mechanism") == "not_a_mechanism"
    assert receipt_why("not_a_mechanism") == ""


@pytest.mark.django_db
def test_consent_page_says_how_each_protected_answer_is_randomized(
    client, kinds_survey
):
    page = client.get(reverse("collection:consent", args=[kinds_survey.public_token]))
    text = html.unescape(page.content.decode())
    for name in ("ordinal", "geometric", "duchi", "piecewise", "padding_sampling"):
        question = questions(kinds_survey)[name]
        line = text.split(question.text, 1)[1].split("</li>")[0]
        assert f"How: {how_randomized(name)}." in line, name
