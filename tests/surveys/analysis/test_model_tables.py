"""How the regression and weighted tables are written on pages and in CSV."""

from __future__ import annotations

import csv
import io

import pytest

from surveys.analysis import model_tables


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
