"""How the regression and weighted tables are written on pages and in CSV."""

from __future__ import annotations

import csv
import io

import pytest
from django.utils import translation

from surveys.analysis import wording
from surveys.analysis.pages import model_tables


@pytest.mark.parametrize(
    ("value", "shown"), [(0.0004, "< 0.001"), (0.0412, "0.041"), (None, "—")]
)
def test_p_values_are_printed_as_papers_print_them(value, shown):
    assert model_tables.p_value(value) == shown


def _logistic(**row):
    base = {
        "term": "=cmd()",
        "estimate": 1.0,
        "std_error": 0.5,
        "statistic": 2.0,
        "p_value": 0.0455,
        "ci_low": 0.02,
        "ci_high": 1.98,
        "odds_ratio": 2.718281828,
        "or_low": 1.02,
        "or_high": None,
    }
    return {"model": "logistic", "rows": [{**base, **row}]}


def test_the_regression_csv_keeps_full_precision_and_neutralises_formulas():
    text = "".join(model_tables.regression_csv(_logistic()))
    (row,) = list(csv.DictReader(io.StringIO(text)))
    assert row["term"] == "'=cmd()"  # a spreadsheet would run it otherwise
    assert row["odds_ratio"] == "2.718281828"
    assert row["odds_ratio_ci95_high"] == ""  # an overflowed bound is left blank


def test_a_linear_regression_csv_has_no_odds_ratio_columns():
    result = {**_logistic(), "model": "linear"}
    header = next(csv.reader(io.StringIO("".join(model_tables.regression_csv(result)))))
    assert header == model_tables.REGRESSION_COLUMNS


def test_a_p_value_and_an_interval_are_written_the_readers_way():
    with translation.override("fr"):
        (row,) = model_tables.regression_rows(_logistic(p_value=0.0412))
        assert model_tables.p_value(0.0004) == "< 0,001"
    assert row["p"] == "0,041"
    assert row["ci"] == "0,020 à 1,980"


def test_the_intercept_is_named_in_the_readers_language():
    with translation.override("es"):
        (row,) = model_tables.regression_rows(_logistic(term="(Intercept)"))
    assert row["term"] == "(Intersección)"


def _weighted(**entry):
    base = {
        "text": "Cheated?",
        "kind": "yes_no",
        "epsilon": 1.0,
        "mechanism_label": "Forced response",
        "n": 1,
        "rows": [],
        "note": wording.sentence("Fewer than 2 weighted respondents answered it."),
    }
    return {"questions": [{**base, **entry}]}


def test_a_weighted_questions_note_is_worded_for_each_reader():
    with translation.override("fr"):
        (french,) = model_tables.weighted_rows(_weighted())
    (english,) = model_tables.weighted_rows(_weighted())
    assert french["shown_note"] == "Moins de 2 répondants pondérés y ont répondu."
    assert english["shown_note"] == "Fewer than 2 weighted respondents answered it."


def _mean_row(**row):
    base = {
        "label": "Mean on the scale 0 (never) to 4 (always)",
        "unweighted": 1.5,
        "unweighted_low": 1.0,
        "unweighted_high": 2.0,
        "weighted": 1.75,
        "weighted_low": 1.25,
        "weighted_high": 2.25,
    }
    return {**base, **row}


def test_a_weighted_mean_label_is_worded_for_the_reader_and_english_in_the_csv():
    label = wording.sentence(
        "Mean on the scale 0 (%(lowest)s) to %(top)s (%(highest)s)",
        lowest="never",
        top=4,
        highest="always",
    )
    result = _weighted(
        kind="ordinal", measure="mean", note=None, rows=[_mean_row(label_note=label)]
    )
    with translation.override("fr"):
        (entry,) = model_tables.weighted_rows(result)
    assert entry["shown_rows"][0]["label"] == (
        "Moyenne sur l’échelle de 0 (never) à 4 (always)"
    )
    assert entry["shown_rows"][0]["weighted_ci"] == "1,250 à 2,250"
    (row,) = csv.DictReader(io.StringIO("".join(model_tables.weighted_csv(result))))
    assert row["answer"] == "Mean on the scale 0 (never) to 4 (always)"


def test_weighted_yes_no_answers_are_in_the_readers_words():
    rows = [_mean_row(label="No"), _mean_row(label="Yes")]
    with translation.override("es"):
        (entry,) = model_tables.weighted_rows(_weighted(rows=rows, note=None))
    assert [r["label"] for r in entry["shown_rows"]] == ["No", "Sí"]
