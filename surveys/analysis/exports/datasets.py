"""The per-respondent table: one row per submission, for SPSS, Stata, R and CSV.

Every export a researcher loads directly is written from here:

- the *wide* table: one row per submission, keyed by its random public id
  (never an internal id, never a time), one or more columns per question
  (``surveys.analysis.exports.dataset_columns``);
- its *codebook* (CSV and JSON): each variable's name, question, mechanism, ε
  (3 significant digits and exact), value labels, how to debias it and how
  each file writes it when the question went unanswered (``missing_values``:
  SPSS −1/−2/−3/−9, Stata .a/.b/.c/.d, CSV/R empty with the reason in
  ``q<n>_missing``), and the SPSS and Stata files' estimate columns
  (``q<n>_mean``, ``q<n>_mean_lo``, ``q<n>_mean_hi``, kind ``estimate``);
- writers for wide CSV (optionally with a UTF-8 byte order mark for
  spreadsheets), SPSS ``.sav`` and Stata ``.dta`` (variable and value labels
  through pyreadstat; beside a scale or number question's reports its
  debiased mean and 95% interval, ``dataset_estimates``), the codebook, and
  an R script that reads the CSV with factors and recomputes every protected
  question's estimates (``surveys.analysis.exports.dataset_r``).

Each writer is ``write_<fmt>(survey, fileobj, progress=None) -> None`` and
writes bytes to ``fileobj``; ``progress`` (if given) is called with the share
of submissions written so far.  ``wide_csv_lines`` streams the CSV.

The columns of a protected question hold the REPORTED value, randomized on
the respondent's device: its labels are those of the answer it reports, but it
is not the respondent's answer, and every variable label says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from surveys.analysis.exports.csv_cells import csv_lines
from surveys.analysis.exports.dataset_columns import (
    CODEBOOK_COLUMNS,
    ID_COLUMN,
    Progress,
    Variable,
    blocks,
    variables,
)
from surveys.analysis.exports.dataset_estimates import estimate_columns
from surveys.analysis.exports.dataset_r import write_r
from surveys.analysis.exports.dataset_rows import coded_rows, labelled
from surveys.analysis.exports.raw_reports import missing_codes_document
from surveys.analysis.exports.stat_files import (
    STATA_MISSING,
    fit_bytes,
    spss_value_label,
    spss_variable_label,
    stata_label,
    stata_labels,
    stata_variable_label,
    write_dta,
    write_sav,
)
from surveys.authoring.models import Survey
from surveys.collection import missing

__all__ = [
    "CODEBOOK_COLUMNS",
    "DATASET_FILES",
    "DATASET_WRITERS",
    "ID_COLUMN",
    "Variable",
    "fit_bytes",
    "spss_value_label",
    "spss_variable_label",
    "stata_label",
    "stata_labels",
    "stata_variable_label",
    "variables",
    "write_dta",
    "write_sav",
]


# --- CSV ----------------------------------------------------------------------------
def wide_csv_lines(
    survey: Survey, *, bom: bool = False, progress: Progress = None
) -> Iterator[str]:
    """The wide table as CSV lines, labels for factors; lazy (one pass)."""
    found = blocks(survey)
    columns = variables(survey, found)
    names = [v.name for v in columns]
    rows = (labelled(columns, row) for row in coded_rows(survey, found, progress))
    lines = csv_lines(names, rows)
    first = next(lines)
    yield ("\ufeff" if bom else "") + first
    yield from lines


def _write_lines(lines: Iterable[str], fileobj: BinaryIO) -> None:
    for line in lines:
        fileobj.write(line.encode("utf-8"))


def write_wide_csv(
    survey: Survey, fileobj: BinaryIO, progress: Progress = None
) -> None:
    """The wide table as UTF-8 CSV."""
    _write_lines(wide_csv_lines(survey, progress=progress), fileobj)


def write_wide_csv_bom(
    survey: Survey, fileobj: BinaryIO, progress: Progress = None
) -> None:
    """The wide table as UTF-8 CSV with a byte order mark (for spreadsheets)."""
    _write_lines(wide_csv_lines(survey, bom=True, progress=progress), fileobj)


def _value_labels_text(labels: dict[Any, str]) -> str:
    return "; ".join(f"{code}={label}" for code, label in labels.items())


# --- codebook -----------------------------------------------------------------------
# Kinds of column that never hold a question's missing-value codes.
NOT_ANSWER_KINDS = {"id", "language", "link_field", "estimate", "missing_reason"}


def codebook_variables(survey: Survey) -> list[Variable]:
    """The codebook's variables: the wide table's, each protected scale or
    number question's estimate columns (``q<n>_mean``, ``q<n>_mean_lo``,
    ``q<n>_mean_hi``: SPSS and Stata files only), last, as in those files."""
    found = blocks(survey)
    out = variables(survey, found)
    for extra in estimate_columns(survey, found):
        out.extend(extra.variables)
    return out


def missing_values(variable: Variable, reason_column: str | None) -> str:
    """How each file writes the variable's cell when its question went
    unanswered (``surveys.collection.missing``; empty: never)."""
    if variable.question_id == 0 or variable.kind in NOT_ANSWER_KINDS:
        return ""
    csv_r = "CSV/R: empty (NA)" + (
        f", the reason in {reason_column}" if reason_column else ""
    )
    if variable.text:
        return f"empty in every file; {csv_r}"
    spss = (
        ", ".join(f"{missing.CODES[r]} {missing.LABELS[r]}" for r in missing.CODES)
        + " (user-missing)"
        if variable.missing_codes
        else "system-missing"
    )
    stata = ", ".join(
        f".{letter} {missing.LABELS[r]}" for r, letter in STATA_MISSING.items()
    )
    return f"SPSS: {spss}; Stata: {stata}; {csv_r}"


def codebook_rows(survey: Survey) -> list[dict[str, Any]]:
    """Every codebook row, with its ``missing_values``."""
    found = codebook_variables(survey)
    reasons = {v.question_id: v.name for v in found if v.kind == "missing_reason"}
    return [
        {
            **v.codebook_row(),
            "missing_values": missing_values(v, reasons.get(v.question_id)),
        }
        for v in found
    ]


def codebook_csv_lines(survey: Survey) -> Iterator[str]:
    def rows() -> Iterator[list[Any]]:
        for row in codebook_rows(survey):
            row["value_labels"] = _value_labels_text(row["value_labels"])
            row["protected"] = "yes" if row["protected"] else "no"
            yield ["" if row[c] is None else row[c] for c in CODEBOOK_COLUMNS]

    return csv_lines(CODEBOOK_COLUMNS, rows())


def write_codebook_csv(
    survey: Survey, fileobj: BinaryIO, progress: Progress = None
) -> None:
    """The codebook: one row per variable of the wide table."""
    _write_lines(codebook_csv_lines(survey), fileobj)
    if progress:
        progress(1.0)


def codebook_document(survey: Survey) -> dict[str, Any]:
    return {
        "format": "deniable-codebook/1",
        "survey_id": survey.pk,
        "title": survey.title,
        "note": (
            "Columns of protected questions hold randomized reports, not "
            "respondents' answers; debias as each variable's 'debias' says."
        ),
        "variables": codebook_rows(survey),
        # What a question a respondent did not answer is coded as (the
        # "missing" records of reports.csv; docs/researcher-guide.md, 7).
        "missing_codes": missing_codes_document(),
    }


def write_codebook_json(
    survey: Survey, fileobj: BinaryIO, progress: Progress = None
) -> None:
    """The codebook as one JSON document."""
    text = json.dumps(codebook_document(survey), ensure_ascii=False, indent=2)
    fileobj.write(text.encode("utf-8"))
    if progress:
        progress(1.0)


DATASET_FILES: dict[str, tuple[Callable[..., None], str, str]] = {
    "wide_csv": (write_wide_csv, "wide.csv", "text/csv; charset=utf-8"),
    "wide_csv_bom": (write_wide_csv_bom, "wide-bom.csv", "text/csv; charset=utf-8"),
    "sav": (write_sav, "wide.sav", "application/x-spss-sav"),
    "dta": (write_dta, "wide.dta", "application/x-stata-dta"),
    "codebook_csv": (write_codebook_csv, "codebook.csv", "text/csv; charset=utf-8"),
    "codebook_json": (write_codebook_json, "codebook.json", "application/json"),
    "r": (write_r, "wide.R", "text/plain; charset=utf-8"),
}
DATASET_WRITERS = {fmt: entry[0] for fmt, entry in DATASET_FILES.items()}
