"""Pages cut at their markers and filled in per request."""

from __future__ import annotations

from surveys import page_slots

A, B = page_slots.marker("a"), page_slots.marker("b")


def test_markers_are_distinct_and_random():
    assert A != B and page_slots.marker("a") != A


def test_a_page_is_filled_in_the_order_its_markers_stand():
    pieces, order = page_slots.split(f"<p>{B}</p><i>{A}</i>", [A, B])
    assert order == (B, A)
    filled = page_slots.fill(pieces, order, {A: "one", B: "two"})
    assert filled == "<p>two</p><i>one</i>"


def test_a_repeated_marker_is_filled_everywhere_it_stands():
    cut = page_slots.split(f"{A}-{B}-{A}", [A, B], repeated=[A])
    assert cut is not None
    assert page_slots.fill(*cut, {A: "x", B: "y"}) == "x-y-x"


def test_a_missing_or_unexpectedly_repeated_marker_refuses_the_page():
    assert page_slots.split(f"{A} only", [A, B]) is None
    assert page_slots.split(f"{A}{A}{B}", [A, B]) is None
