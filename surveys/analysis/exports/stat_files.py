"""SPSS ``.sav`` and Stata ``.dta`` files of the per-respondent table, written
through pyreadstat: variable labels, value labels, measure levels, missing-value
codes, and each scale and number question's debiased mean
(``dataset_estimates``).

A question's missing answer (``surveys.collection.missing``) is, in SPSS, its
code (−1 not shown, −2 left blank, −3 declined, −9 unknown) declared
user-missing (the range −9 to −1) with its value label, in every column whose
values cannot be negative (elsewhere system-missing; the reason column says
why); in Stata, an extended missing value (.a not shown, .b left blank,
.c declined, .d unknown) with its value label.

Memory: pyreadstat writes from a whole data frame, so the table is held in
memory while the file is written.  Measured peak (resident set growth, a
table of a 22-character id and 10 numeric questions, pandas float64 columns
for SPSS and object columns for Stata): 4.7 MB at 1,000 respondents and
19 MB at 10,000 (163 MB at 100,000), that is about 1.9 kB per respondent or
175 bytes per respondent per column at 10,000 rows, tending to about
150 bytes per cell (``tracemalloc`` sees about 55 of them: the Python lists
and the frame; the rest is the writer's buffers).  A table of more than
``settings.STAT_FILE_MAX_CELLS`` cells (rows × columns; 5,000,000 by
default, about 750 MB at peak) is refused with :class:`StatFileTooLarge`
before anything is built: the wide CSV, written line by line, holds the
same table at any size.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from django.conf import settings
from django.utils.translation import gettext_noop

from surveys.analysis.exports.dataset_columns import (
    ID_COLUMN,
    Missing,
    Progress,
    Variable,
    blocks,
    variables,
)
from surveys.analysis.exports.dataset_estimates import estimate_columns
from surveys.analysis.exports.dataset_rows import coded_rows
from surveys.analysis.wording import Refusal
from surveys.authoring.models import Survey
from surveys.collection import missing
from surveys.collection.models import Submission

# Stata: names of at most 32 characters, variable labels of at most 80.
STATA_LABEL_LIMIT = 80
# SPSS: variable labels of at most 256 bytes, value labels of at most 120.
SPSS_VARIABLE_LABEL_BYTES = 256
SPSS_VALUE_LABEL_BYTES = 120


# Stata's extended missing value of each outcome of an unanswered question.
STATA_MISSING = {
    missing.NOT_SHOWN: "a",
    missing.BLANK: "b",
    missing.DECLINED: "c",
    missing.UNKNOWN: "d",
}
SPSS = "spss"
STATA = "stata"


@dataclass
class Frame:
    """The wide table for pyreadstat: the data frame, its variables, the
    variables holding missing-value codes (with the reasons used), and the
    notes on the debiased means it carries (``dataset_estimates``)."""

    frame: Any
    columns: list[Variable]
    missing: dict[str, set[str]]
    notes: list[str]

    def labels(self, fit: Callable[[str], str] = str) -> dict[str, dict[Any, str]]:
        """Value labels, with the labels of the missing-value codes used."""
        out: dict[str, dict[Any, str]] = {
            v.name: {
                # Stata's object columns (with extended missing values) take
                # integer codes; SPSS's doubles take floats.
                (int(code) if self.stata else float(code)): fit(label)
                for code, label in v.value_labels.items()
            }
            for v in self.columns
            if v.value_labels
        }
        for name, reasons in self.missing.items():
            for reason in sorted(reasons):
                key = (
                    STATA_MISSING[reason]
                    if self.stata
                    else float(missing.CODES[reason])
                )
                out.setdefault(name, {})[key] = fit(missing.LABELS[reason])
        return out

    stata: bool = False


def _cell(variable: Variable, cell: Any, fmt: str) -> Any:
    """A cell as pyreadstat writes it: a missing answer's code (SPSS, where
    the column's values cannot be negative; else system-missing) or its
    extended missing value (Stata)."""
    if not isinstance(cell, Missing):
        return cell
    if variable.text:
        return None  # typed text: empty; the reason column says why
    if fmt == STATA:
        return STATA_MISSING[cell.reason]
    return float(cell.code) if variable.missing_codes else None


class StatFileTooLarge(Refusal):
    """An SPSS or Stata file larger than ``settings.STAT_FILE_MAX_CELLS``."""


TOO_LARGE = gettext_noop(
    "This table has %(cells)s cells (%(rows)s respondents × %(columns)s "
    "columns), more than the %(limit)s this server writes as an SPSS or Stata "
    "file (STAT_FILE_MAX_CELLS). Download the wide CSV instead: it holds the "
    "same table."
)


def check_size(survey: Survey, columns: int) -> None:
    """Refuse (:class:`StatFileTooLarge`) a table of more than
    ``settings.STAT_FILE_MAX_CELLS`` cells: rows × ``columns``."""
    rows = Submission.objects.filter(survey=survey).count()
    limit = settings.STAT_FILE_MAX_CELLS
    if rows * columns > limit:
        raise StatFileTooLarge(
            TOO_LARGE, cells=rows * columns, rows=rows, columns=columns, limit=limit
        )


def stat_file_size_check(survey: Survey) -> None:
    """:func:`check_size` for the survey's table as it stands (with its
    estimate columns)."""
    found = blocks(survey)
    extra = sum(len(e.variables) for e in estimate_columns(survey, found))
    check_size(survey, len(variables(survey, found)) + extra)


def _frame(survey: Survey, progress: Progress, fmt: str) -> Frame:
    """The wide table as a data frame for ``fmt`` (SPSS or Stata); refused
    above ``settings.STAT_FILE_MAX_CELLS`` cells."""
    import pandas as pd

    found = blocks(survey)
    columns = variables(survey, found)
    estimates = estimate_columns(survey, found)
    check_size(survey, len(columns) + sum(len(e.variables) for e in estimates))
    data: dict[str, list[Any]] = {v.name: [] for v in columns}
    names = list(data)
    text_columns = {v.name for v in columns if v.text or v.name == ID_COLUMN}
    reasons: dict[str, set[str]] = {}
    for row in coded_rows(survey, found, progress):
        for variable, cell in zip(columns, row, strict=True):
            coded = fmt == STATA or variable.missing_codes
            if isinstance(cell, Missing) and coded and not variable.text:
                reasons.setdefault(variable.name, set()).add(cell.reason)
            data[variable.name].append(_cell(variable, cell, fmt))
    series = {}
    for name, values in data.items():
        if name in text_columns:
            series[name] = pd.Series(values, dtype="string").fillna("").astype(str)
        elif fmt == STATA and name in reasons:
            series[name] = pd.Series(
                [None if v is None else v for v in values], dtype=object
            )
        else:
            series[name] = pd.Series(values, dtype="float64")
    frame = pd.DataFrame(series, columns=names)
    notes = []
    for extra in estimates:
        for variable, value in zip(extra.variables, extra.values, strict=True):
            frame[variable.name] = pd.Series([value] * len(frame), dtype="float64")
            columns.append(variable)
        notes.append(extra.note)
    return Frame(frame, columns, reasons, notes, stata=fmt == STATA)


def fit_bytes(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8 (ends with … when cut),
    never inside a character."""
    if len(text.encode("utf-8")) <= limit:
        return text
    room = limit - len("…".encode())
    cut = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    return cut + "…"


def spss_variable_label(text: str) -> str:
    """A variable label within SPSS's 256 bytes (the codebook keeps it whole)."""
    return fit_bytes(text, SPSS_VARIABLE_LABEL_BYTES)


def spss_value_label(text: str) -> str:
    """A value label within SPSS's 120 bytes (the codebook keeps it whole)."""
    return fit_bytes(text, SPSS_VALUE_LABEL_BYTES)


SPSS_DOCUMENT_LINE_BYTES = 80


def spss_document(notes: list[str]) -> list[str]:
    """Notes as the lines of an SPSS document (at most 80 bytes each)."""
    return [
        fit_bytes(line, SPSS_DOCUMENT_LINE_BYTES)
        for note in notes
        for line in textwrap.wrap(note, SPSS_DOCUMENT_LINE_BYTES - 4)
    ]


def _copy_from_temporary(writer: Callable[[str], None], fileobj: BinaryIO) -> None:
    """pyreadstat writes to a path: write a temporary file, then copy it."""
    handle, path = tempfile.mkstemp(suffix=".tmp")
    os.close(handle)
    try:
        writer(path)
        with open(path, "rb") as written:
            shutil.copyfileobj(written, fileobj)
    finally:
        os.unlink(path)


def write_sav(survey: Survey, fileobj: BinaryIO, progress: Progress = None) -> None:
    """SPSS ``.sav``: variable labels, value labels and measure levels (labels
    cut to SPSS's limits; the codebook keeps them whole)."""
    import pyreadstat

    table = _frame(survey, progress, SPSS)
    columns = table.columns
    _copy_from_temporary(
        lambda path: pyreadstat.write_sav(
            table.frame,
            path,
            file_label=f"Deniable survey {survey.pk}: randomized reports"[:64],
            note=spss_document(table.notes) or None,
            column_labels=[spss_variable_label(v.label) for v in columns],
            variable_value_labels=table.labels(spss_value_label),
            missing_ranges={name: [{"lo": -9.0, "hi": -1.0}] for name in table.missing},
            variable_measure={v.name: v.measure for v in columns},
        ),
        fileobj,
    )


def stata_label(text: str) -> str:
    """A label within Stata's 80-character limit (ends with … when cut)."""
    if len(text) <= STATA_LABEL_LIMIT:
        return text
    return text[: STATA_LABEL_LIMIT - 1] + "…"


PROTECTED_MARK = "not the respondent's answer: "
PLAIN_MARK = "answer (not protected): "


def _fit(text: str, room: int) -> str:
    """``text`` within ``room`` characters, ending with … when cut."""
    if len(text) <= room:
        return text
    return text[: max(room - 1, 0)] + "…"


def stata_variable_label(variable: Variable) -> str:
    """A Stata variable label (≤ 80 characters) that starts with the question.

    The shared "randomized report" warning of SPSS and CSV labels would take
    76 of Stata's 80 characters, so here the question text comes first, then
    what the column holds (an option's bit, a hash seed), then a short mark
    ``[randomized, eps=…]``; only the question text is shortened, with …,
    so every column keeps what tells it apart.
    """
    text = variable.label
    if variable.protected and PROTECTED_MARK in text:
        rest = text.split(PROTECTED_MARK, 1)[1]
        mark = f" [randomized, eps={variable.epsilon}]"
    else:
        rest = text.split(PLAIN_MARK, 1)[1] if PLAIN_MARK in text else text
        mark = ""
    question = variable.question
    if question and question in rest:
        detail = rest.replace(question, "", 1).strip(" :")
    else:
        question, detail = "", rest
    tail = (f" ({detail})" if question and detail else detail) + mark
    tail = _fit(tail, STATA_LABEL_LIMIT - min(len(question), 20))
    return _fit(question, STATA_LABEL_LIMIT - len(tail)) + tail


def stata_labels(columns: list[Variable]) -> list[str]:
    """Every column's :func:`stata_variable_label`, repeated ones told apart
    by the variable's name."""
    labels = [stata_variable_label(v) for v in columns]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [
        label
        if seen[label] == 1
        else _fit(label, STATA_LABEL_LIMIT - len(v.name) - 3) + f" ({v.name})"
        for label, v in zip(labels, columns, strict=True)
    ]


def write_dta(survey: Survey, fileobj: BinaryIO, progress: Progress = None) -> None:
    """Stata ``.dta``: variable labels (≤ 80 characters) and value labels."""
    import pyreadstat

    table = _frame(survey, progress, STATA)
    columns = table.columns
    _copy_from_temporary(
        lambda path: pyreadstat.write_dta(
            table.frame,
            path,
            file_label=stata_label(f"Deniable survey {survey.pk}: randomized reports"),
            column_labels=stata_labels(columns),
            variable_value_labels=table.labels(),
            missing_user_values={
                name: sorted(STATA_MISSING[r] for r in reasons)
                for name, reasons in table.missing.items()
            },
            version=15,
        ),
        fileobj,
    )


# Every dataset file: format -> (writer, file name suffix, content type).  The
# writers keep the export registry's signature ``(survey, fileobj, progress)``.
