"""What the receipt tells respondents about each mechanism's reports.

How each answer is protected is worded on the device (ldp/js/wording.js and
tests/js); the server words only the receipt's notes on stored reports, as
each mechanism declares them.
"""

from __future__ import annotations

from django.utils import translation

from ldp.mechanisms import registry
from surveys.collection.respondent_words import receipt_why


def test_numeric_receipts_say_only_averages_are_meaningful():
    notes = {receipt_why(f.name) for f in registry.for_kind("numeric")}
    assert len(notes) == 1
    assert "only averages over many people are meaningful" in notes.pop()


def test_multi_select_receipts_say_the_marks_do_not_show_the_choices():
    for family in registry.for_kind("multi_select"):
        assert "not show which options you chose" in receipt_why(family.name)


def test_receipt_notes_are_in_the_respondents_language():
    with translation.override("fr"):
        assert "moyennes" in receipt_why("geometric")


def test_unknown_mechanism_and_obvious_reports_get_no_receipt_note():
    assert receipt_why("not_a_mechanism") == ""
    assert receipt_why("grr") == ""
