"""The codebook describes the SPSS and Stata files' estimate columns
(``q<n>_mean``, ``q<n>_mean_lo``, ``q<n>_mean_hi``), in the files' order."""

from __future__ import annotations

import csv
import io

import pyreadstat
import pytest

from surveys.analysis.exports import datasets
from surveys.analysis.reading import latest_results
from tests.surveys.analysis import dashboard_support

pytestmark = pytest.mark.django_db


@pytest.fixture
def student_life(ada):
    survey = dashboard_support.make_survey(ada)
    dashboard_support.simulate(survey, 250)
    return survey


def _means(survey) -> list[int]:
    results = latest_results(survey)
    positions = [
        q.position for q in results.questions if q.mean is not None and q.distribution
    ]
    assert positions  # the survey has protected scale or number questions
    return positions


@pytest.mark.parametrize("suffix", ["_mean", "_mean_lo", "_mean_hi"])
def test_codebook_lists_each_scale_and_number_questions_estimate_columns(
    student_life, suffix
):
    positions = _means(student_life)  # (computes the results the files carry)
    text = "".join(datasets.codebook_csv_lines(student_life))
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(text))}
    for position in positions:
        row = rows[f"q{position}{suffix}"]
        assert row["kind"] == "estimate" and row["measure"] == "scale"
        assert "(same in every row)" in row["label"] and row["missing_values"] == ""


def test_codebook_names_the_sav_and_dta_columns_in_order(student_life, tmp_path):
    _means(student_life)  # (computes the results the files carry)
    book = [v["name"] for v in datasets.codebook_document(student_life)["variables"]]
    for writer, reader in (
        (datasets.write_sav, pyreadstat.read_sav),
        (datasets.write_dta, pyreadstat.read_dta),
    ):
        path = tmp_path / "wide"
        buffer = io.BytesIO()
        writer(student_life, buffer)
        path.write_bytes(buffer.getvalue())
        _, meta = reader(str(path), metadataonly=True)
        assert meta.column_names == book
