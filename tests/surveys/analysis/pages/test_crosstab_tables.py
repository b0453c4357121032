"""How a stored cross-tab or breakdown is written for its reader: numbers the
reader's way, yes/no labels in the reader's words, notes translated; tables
stored before the numbers were kept are shown as stored."""

from __future__ import annotations

from django.utils import translation

from surveys.analysis.pages.crosstab_tables import breakdown_shown, crosstab_shown


def _crosstab(estimate=0.125, low=0.07, high=None):
    cell = {
        "column": "Yes",
        "estimate": estimate,
        "low": low,
        "high": high,
        "consistent": estimate,
    }
    return {
        "crosstab": {
            "result": {"n": 40},
            "excluded": 0,
            "question_a": {"text": "Cheated?", "kind": "yes_no"},
            "question_b": {"text": "Drank?", "kind": "yes_no"},
            "labels_b": ["No", "Yes"],
        },
        "rows": [{"label": "Yes", "cells": [cell]}],
    }


def test_a_crosstab_cell_is_a_percentage_with_the_readers_decimal_comma():
    with translation.override("fr"):
        shown = crosstab_shown(_crosstab())
    cell = shown["crosstab_rows"][0]["cells"][0]
    assert cell["estimate"] == "12,5\u00a0%"
    assert cell["low"] == "7,0\u00a0%"
    assert cell["high"] == "—"  # not finite when computed: stored as null


def test_crosstab_yes_no_labels_are_in_the_readers_words():
    with translation.override("es"):
        shown = crosstab_shown(_crosstab())
    assert shown["crosstab"]["labels_b"] == ["No", "Sí"]
    assert shown["crosstab_rows"][0]["label"] == "Sí"


def test_a_crosstab_stored_as_text_is_shown_as_stored():
    stored = _crosstab(estimate="12.5%", low="6.2%", high="18.8%")
    del stored["crosstab"]["question_a"]["kind"]
    with translation.override("fr"):
        shown = crosstab_shown(stored)
    assert shown["crosstab_rows"][0]["cells"][0]["estimate"] == "12.5%"
    assert shown["crosstab_rows"][0]["label"] == "Yes"


def _breakdown(note=""):
    stratum = {
        "label": "Yes",
        "n": 1 if note else 30,
        "estimate": [0.25],
        "low": [0.125],
        "high": [0.375],
        "consistent": [0.25],
        "mean": 1.5 if not note else None,
        "mean_low": 1.25 if not note else None,
        "mean_high": 1.75 if not note else None,
        "note": note,
    }
    rows = (
        []
        if note
        else [
            {
                "label": "No",
                "estimate": 0.25,
                "low": 0.125,
                "high": 0.375,
                "consistent": 0.25,
            }
        ]
    )
    return {
        "result": {
            "question": {"text": "Cheated?", "kind": "yes_no"},
            "by": {"text": "Employed?", "kind": "yes_no"},
        },
        "strata": [{"stratum": stratum, "rows": rows}],
    }


def test_a_breakdown_is_written_in_the_readers_language():
    with translation.override("fr"):
        (item,) = breakdown_shown(_breakdown())["breakdown"]["strata"]
    assert item["stratum"]["label"] == "Oui"
    assert item["rows"][0]["label"] == "Non"
    assert item["rows"][0]["estimate"] == "25,0\u00a0%"
    assert item["mean"] == "1,500"


def test_a_breakdown_strata_note_is_translated():
    with translation.override("es"):
        (item,) = breakdown_shown(_breakdown("Too few reports to estimate."))[
            "breakdown"
        ]["strata"]
    assert item["stratum"]["note"] == "Muy pocos informes para estimar."
    assert item["mean"] == "—"


def test_a_suppressed_breakdown_group_names_the_minimum_in_the_readers_language():
    from surveys.analysis.jobs.crosstabs import SMALL_GROUP_NOTE

    result = _breakdown(SMALL_GROUP_NOTE)
    result["strata"][0]["stratum"]["minimum"] = 30
    for language in ("en", "fr", "es"):
        with translation.override(language):
            (item,) = breakdown_shown(result)["breakdown"]["strata"]
        assert "30" in item["stratum"]["note"]
        assert (item["stratum"]["note"] == SMALL_GROUP_NOTE % {"minimum": 30}) == (
            language == "en"
        )


def test_a_crosstab_estimate_beyond_zero_is_shown_at_zero_and_marked():
    with translation.override("en"):
        shown = crosstab_shown(_crosstab(estimate=-0.054, low=-0.2, high=0.04))
    cell = shown["crosstab_rows"][0]["cells"][0]
    assert (cell["estimate"], cell["cut"]) == ("0.0%", True)
    assert (cell["low"], cell["high"]) == ("0.0%", "4.0%")
    assert shown["crosstab_cut"] is True


def test_a_crosstab_estimate_within_the_range_is_not_marked():
    with translation.override("en"):
        shown = crosstab_shown(_crosstab(estimate=0.3, low=0.2, high=0.4))
    assert shown["crosstab_rows"][0]["cells"][0]["cut"] is False
    assert shown["crosstab_cut"] is False


def test_a_breakdown_share_beyond_one_hundred_is_shown_at_one_hundred():
    stored = _breakdown()
    stored["strata"][0]["rows"][0].update(estimate=1.08, low=0.9, high=1.3)
    with translation.override("en"):
        shown = breakdown_shown(stored)
    row = shown["breakdown"]["strata"][0]["rows"][0]
    assert (row["estimate"], row["cut"]) == ("100.0%", True)
    assert (row["low"], row["high"]) == ("90.0%", "100.0%")
    assert shown["breakdown"]["cut"] is True
