"""The per-respondent table: one row per submission, for SPSS, Stata, R and CSV.

Every export a researcher loads directly is written from here:

- the *wide* table: one row per submission, keyed by its random public id
  (never an internal id, never a time), one or more columns per question
  (``surveys.analysis.exports.dataset_columns``);
- its *codebook* (CSV and JSON): each variable's name, question, mechanism, ε
  (3 significant digits and exact), value labels and how to debias it;
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
import os
import shutil
import tempfile
import textwrap
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from surveys.analysis.exports.csv_cells import CHUNK_SIZE, csv_lines
from surveys.analysis.exports.dataset_columns import (
    CODEBOOK_COLUMNS,
    ID_COLUMN,
    Block,
    Progress,
    Variable,
    blocks,
    link_names,
    variables,
)
from surveys.analysis.exports.dataset_estimates import estimate_columns
from surveys.analysis.exports.dataset_r import write_r
from surveys.analysis.exports.design import spec_revisions
from surveys.authoring.models import Survey
from surveys.collection import report_codec
from surveys.collection.models import LinkValue, PlainAnswer, Report, Submission
from surveys.collection.selectors import survey_records_language

# Stata: names of at most 32 characters, variable labels of at most 80.
STATA_LABEL_LIMIT = 80
# SPSS: variable labels of at most 256 bytes, value labels of at most 120.
SPSS_VARIABLE_LABEL_BYTES = 256
SPSS_VALUE_LABEL_BYTES = 120


# --- rows ---------------------------------------------------------------------------
def _submissions(survey: Survey, upto: int) -> Iterator[tuple[str, str]]:
    return (
        Submission.objects.filter(survey=survey, pk__lte=upto)
        .order_by("public_id")
        .values_list("public_id", "language")
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _by_submission(rows: Iterable[tuple]) -> Iterator[tuple[str, list[tuple]]]:
    current: str | None = None
    group: list[tuple] = []
    for row in rows:
        if row[0] != current:
            if current is not None:
                yield current, group
            current, group = row[0], []
        group.append(row[1:])
    if current is not None:
        yield current, group


def _merged(
    survey: Survey,
) -> Iterator[tuple[str, str, list[tuple], list[tuple], list[tuple]]]:
    """(public id, its language ("" unless recorded), its reports, its plain
    answers, its link values), by public id; one pass each.

    Only submissions stored when the export began (their internal key at most
    the largest one then; the key is used here and never written), so one
    that arrives while the file is written is not half in it.
    """
    upto = (
        Submission.objects.filter(survey=survey)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
        or 0
    )
    revisions = spec_revisions(survey)
    reports = _by_submission(
        (public_id, q, r, report_codec.decode(revisions[q][r], value, bits))
        for public_id, q, r, value, bits in Report.objects.filter(
            survey=survey, submission_id__lte=upto
        )
        .order_by("submission__public_id", "question_id")
        .values_list(
            "submission__public_id", "question_id", "spec_revision", "value", "bits"
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )
    answers = _by_submission(
        PlainAnswer.objects.filter(question__survey=survey, submission_id__lte=upto)
        .order_by("submission__public_id", "question_id")
        .values_list("submission__public_id", "question_id", "value", "other_text")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    links = _by_submission(
        LinkValue.objects.filter(submission__survey=survey, submission_id__lte=upto)
        .order_by("submission__public_id", "name")
        .values_list("submission__public_id", "name", "value")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    streams = [reports, answers, links]
    heads = [next(stream, None) for stream in streams]
    for public_id, language in _submissions(survey, upto):
        mine: list[list[tuple]] = []
        for index, stream in enumerate(streams):
            head = heads[index]
            if head is not None and head[0] == public_id:
                mine.append(head[1])
                heads[index] = next(stream, None)
            else:
                mine.append([])
        yield public_id, language, mine[0], mine[1], mine[2]


def coded_rows(
    survey: Survey, found: list[Block], progress: Progress = None
) -> Iterator[list[Any]]:
    """Rows of the wide table as codes and numbers (None: no value)."""
    by_question: dict[int, list[Block]] = {}
    for block in found:
        by_question.setdefault(block.question.pk, []).append(block)
    total = Submission.objects.filter(survey=survey).count() if progress else 0
    links = link_names(survey)
    language_column = survey_records_language(survey)
    merged = enumerate(_merged(survey), start=1)
    for done, (public_id, language, reports, answers, link_values) in merged:
        cells: dict[int, list[Any]] = {}  # id(block) -> its cells
        for question_id, revision, payload in reports:
            for block in by_question.get(question_id, []):
                if revision in block.revisions:
                    cells[id(block)] = block.decode(payload)
                    if block.revision_column:
                        cells[id(block)].append(revision)
        for question_id, value, other_text in answers:
            for block in by_question.get(question_id, []):
                cells[id(block)] = block.decode(value)
                if block.other:
                    cells[id(block)].append(other_text or None)
        given = dict(link_values)
        row: list[Any] = [public_id]
        if language_column:
            row.append(language or None)
        row.extend(given.get(name) for name in links)
        for block in found:
            width = len(block.variables) + (1 if block.revision_column else 0)
            row.extend(cells.get(id(block), [None] * width))
        yield row
        if progress and total and done % CHUNK_SIZE == 0:
            progress(min(done / total, 1.0))
    if progress:
        progress(1.0)


def _labelled(variables_: list[Variable], row: list[Any]) -> list[Any]:
    out = []
    for variable, cell in zip(variables_, row, strict=True):
        if cell is None:
            out.append("")
        elif variable.factor:
            out.append(variable.value_labels.get(cell, str(cell)))
        elif isinstance(cell, float) and cell.is_integer():
            out.append(int(cell))
        else:
            out.append(cell)
    return out


# --- CSV ----------------------------------------------------------------------------
def wide_csv_lines(
    survey: Survey, *, bom: bool = False, progress: Progress = None
) -> Iterator[str]:
    """The wide table as CSV lines, labels for factors; lazy (one pass)."""
    found = blocks(survey)
    columns = variables(survey, found)
    names = [v.name for v in columns]
    rows = (_labelled(columns, row) for row in coded_rows(survey, found, progress))
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


def _value_labels_text(labels: dict[int, str]) -> str:
    return "; ".join(f"{code}={label}" for code, label in labels.items())


def codebook_csv_lines(survey: Survey) -> Iterator[str]:
    def rows() -> Iterator[list[Any]]:
        for variable in variables(survey):
            row = variable.codebook_row()
            row["value_labels"] = _value_labels_text(variable.value_labels)
            row["protected"] = "yes" if variable.protected else "no"
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
        "variables": [v.codebook_row() for v in variables(survey)],
    }


def write_codebook_json(
    survey: Survey, fileobj: BinaryIO, progress: Progress = None
) -> None:
    """The codebook as one JSON document."""
    text = json.dumps(codebook_document(survey), ensure_ascii=False, indent=2)
    fileobj.write(text.encode("utf-8"))
    if progress:
        progress(1.0)


# --- SPSS and Stata (through pyreadstat) --------------------------------------------
def _frame(survey: Survey, progress: Progress) -> tuple[Any, list[Variable], list[str]]:
    """The wide table as a data frame, its variables, and the notes on the
    debiased means it carries (``dataset_estimates``)."""
    import pandas as pd

    found = blocks(survey)
    columns = variables(survey, found)
    data: dict[str, list[Any]] = {v.name: [] for v in columns}
    names = list(data)
    text_columns = {v.name for v in columns if v.text or v.name == ID_COLUMN}
    for row in coded_rows(survey, found, progress):
        for name, cell in zip(names, row, strict=True):
            data[name].append(cell)
    frame = pd.DataFrame(
        {
            name: (
                pd.Series(values, dtype="string").fillna("").astype(str)
                if name in text_columns
                else pd.Series(values, dtype="float64")
            )
            for name, values in data.items()
        },
        columns=names,
    )
    notes = []
    for extra in estimate_columns(survey, found):
        for variable, value in zip(extra.variables, extra.values, strict=True):
            frame[variable.name] = pd.Series([value] * len(frame), dtype="float64")
            columns.append(variable)
        notes.append(extra.note)
    return frame, columns, notes


def _labels(
    columns: list[Variable], fit: Callable[[str], str] = str
) -> dict[str, dict[float, str]]:
    return {
        v.name: {float(code): fit(label) for code, label in v.value_labels.items()}
        for v in columns
        if v.value_labels
    }


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

    frame, columns, notes = _frame(survey, progress)
    _copy_from_temporary(
        lambda path: pyreadstat.write_sav(
            frame,
            path,
            file_label=f"Deniable survey {survey.pk}: randomized reports"[:64],
            note=spss_document(notes) or None,
            column_labels=[spss_variable_label(v.label) for v in columns],
            variable_value_labels=_labels(columns, spss_value_label),
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

    frame, columns, _ = _frame(survey, progress)
    _copy_from_temporary(
        lambda path: pyreadstat.write_dta(
            frame,
            path,
            file_label=stata_label(f"Deniable survey {survey.pk}: randomized reports"),
            column_labels=stata_labels(columns),
            variable_value_labels=_labels(columns),
            version=15,
        ),
        fileobj,
    )


# Every dataset file: format -> (writer, file name suffix, content type).  The
# writers keep the export registry's signature ``(survey, fileobj, progress)``.
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
