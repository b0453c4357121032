"""Reads for collection that keep state in the process (``selectors.LastRows``)."""

from __future__ import annotations

from surveys.collection.selectors import LastRows

ROWS_A = ((1, "a"),)
ROWS_B = ((2, "b"),)
ROWS_C = ((3, "c"),)


def test_last_rows_gives_the_rows_last_kept_for_a_token():
    kept = LastRows(size=2)
    kept.remember("token-a", ROWS_A)
    kept.remember("token-a", ROWS_B)
    assert kept.last("token-a") == ROWS_B


def test_last_rows_gives_nothing_for_a_token_never_kept():
    assert LastRows(size=2).last("token-a") == ()


def test_last_rows_forgets_a_token_whose_survey_is_no_longer_answerable():
    kept = LastRows(size=2)
    kept.remember("token-a", ROWS_A)
    kept.remember("token-a", ())
    assert kept.last("token-a") == ()


def test_last_rows_drops_the_least_recently_kept_token_beyond_its_size():
    kept = LastRows(size=2)
    kept.remember("token-a", ROWS_A)
    kept.remember("token-b", ROWS_B)
    kept.remember("token-a", ROWS_A)  # read again: now the most recent
    kept.remember("token-c", ROWS_C)
    assert kept.last("token-b") == ()
    assert (kept.last("token-a"), kept.last("token-c")) == (ROWS_A, ROWS_C)
