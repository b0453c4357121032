"""What the receipt tells respondents about each mechanism: one place.

How each answer is protected is worded on the device (ldp/js/wording.js and
tests/js); the server keeps only the receipt's notes on stored reports.
"""

from __future__ import annotations

from ldp.mechanisms import REGISTRY
from surveys.collection.respondent_words import NUMERIC_WHY, RECEIPT_WHY, receipt_why


def test_receipt_notes_name_only_registered_mechanisms():
    assert set(RECEIPT_WHY) <= set(REGISTRY)


def test_numeric_receipts_say_only_averages_are_meaningful():
    for name in ("geometric", "gaussian", "duchi", "piecewise"):
        assert receipt_why(name) == NUMERIC_WHY


def test_multi_select_receipts_say_the_marks_do_not_show_the_choices():
    for name in ("multi_rr", "padding_sampling"):
        assert "not show which options you chose" in receipt_why(name)


def test_unknown_mechanism_gets_no_receipt_note():
    assert receipt_why("not_a_mechanism") == ""
