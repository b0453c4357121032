"""The per-respondent table: one row per submission, for SPSS, Stata, R and CSV.

Every export a researcher loads directly is written from here:

- the *wide* table: one row per submission, keyed by its random public id
  (never an internal id, never a time), one or more columns per question;
- its *codebook* (CSV and JSON): each variable's name, question, mechanism, ε
  (3 significant digits and exact), value labels and how to debias it;
- writers for wide CSV (optionally with a UTF-8 byte order mark for
  spreadsheets), SPSS ``.sav`` and Stata ``.dta`` (variable and value labels
  through pyreadstat), the codebook, and an R script that reads the CSV with
  factors and prints the debiased shares of each frequency question.

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any, BinaryIO

import ldp
from ldp.mechanisms.multiselect.base import MultiSelectMechanism
from ldp.mechanisms.oracle import FrequencyOracle
from surveys.analysis.exports import CHUNK_SIZE, csv_lines, neutralise, spec_revisions
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.mechanisms import design_label
from surveys.authoring.models import Question, Survey
from surveys.collection import report_codec
from surveys.collection.models import LinkValue, PlainAnswer, Report, Submission
from surveys.collection.questions import answer_choices
from surveys.collection.selectors import survey_records_language

Progress = Callable[[float], None] | None
ID_COLUMN = "respondent"
# Stata: names of at most 32 characters, variable labels of at most 80.
STATA_LABEL_LIMIT = 80
# SPSS: variable labels of at most 256 bytes, value labels of at most 120.
SPSS_VARIABLE_LABEL_BYTES = 256
SPSS_VALUE_LABEL_BYTES = 120
# The mechanisms whose report is one answer index (a factor in R).
INDEX_MECHANISMS = {"grr", "forced_response", "warner", "ordinal", "padding_sampling"}
BIT_MECHANISMS = {"sue", "oue", "multi_rr"}
KERNEL_MECHANISMS = {"geometric", "gaussian"}
PAD_LABEL = "(padding item {})"


@dataclass(frozen=True)
class Variable:
    """One column of the wide table, as its codebook row describes it."""

    name: str
    question_id: int
    position: int
    question: str
    kind: str
    protected: bool
    mechanism: str = ""
    mechanism_label: str = ""
    epsilon: str = ""  # 3 significant digits
    epsilon_exact: str = ""
    spec_revision: int | None = None
    label: str = ""  # the variable label
    value_labels: dict[int, str] = field(default_factory=dict)
    measure: str = "nominal"  # SPSS measure level: nominal, ordinal or scale
    debias: str = ""
    # Written as labels in the CSV (a factor in R); else as numbers.
    factor: bool = False
    # Free text (a link field's value): a string column everywhere.
    text: bool = False

    def codebook_row(self) -> dict[str, Any]:
        row = asdict(self)
        row["value_labels"] = {str(k): v for k, v in self.value_labels.items()}
        return row


CODEBOOK_COLUMNS = [
    "name",
    "question_id",
    "position",
    "question",
    "kind",
    "protected",
    "mechanism",
    "mechanism_label",
    "epsilon",
    "epsilon_exact",
    "spec_revision",
    "label",
    "value_labels",
    "measure",
    "debias",
]


def epsilon_3(value: float) -> str:
    """ε to 3 significant digits, as the codebook and labels print it."""
    return f"{value:.3g}"


# --- per question: variables and how a stored value becomes cells ------------------
@dataclass
class Block:
    """The columns of one question (one spec revision layout, if protected)."""

    question: Question
    variables: list[Variable]
    decode: Callable[[Any], list[Any]]  # stored payload or answer -> one cell each
    revisions: frozenset[int] = frozenset()  # report revisions decoded here
    spec: dict | None = None
    revision_column: str | None = None  # "<name>_rev" when revisions vary


def _choice_labels(question: Question) -> dict[int, str]:
    return dict(sorted(answer_choices(question)))


def _layout(spec: dict) -> tuple:
    """What decides a report's shape and meaning (not the weights or ε)."""
    keys = ("mechanism", "k", "low", "high", "step", "ell", "g")
    return tuple(spec.get(key) for key in keys)


def support_probabilities(
    mechanism: ldp.Mechanism,
) -> tuple[float | list[float], float | list[float]]:
    """(p*, q*) of a frequency question: one number each when every answer has
    the same, else one per answer (forced response with unequal forced parts)."""
    k = mechanism.k
    p = [float(v) for v in mechanism.p_star[:k]]
    q = [float(v) for v in mechanism.q_star[:k]]
    if len(set(p)) == 1 and len(set(q)) == 1:
        return p[0], q[0]
    return p, q


def _debias(mechanism: ldp.Mechanism, name: str) -> str:
    if isinstance(mechanism, FrequencyOracle | MultiSelectMechanism):
        p, q = support_probabilities(mechanism)
        scale = getattr(mechanism, "scale", 1)
        factor = f"{scale}·" if scale != 1 else ""
        support = {
            "olh": "reports whose hash ((a·v + b) mod 2147483647) mod g equals y",
            "hadamard": (
                "reports whose bit equals 1 if popcount(j AND v) is even, else 0"
            ),
            "sue": "reports with bit v set",
            "oue": "reports with bit v set",
            "multi_rr": "reports with bit v set",
        }.get(name, "reports equal to v")
        return (
            f"Share of answer v = {factor}(share of {support} − q)/(p − q), "
            f"p = {p!r}, q = {q!r}{' (per answer)' if isinstance(p, list) else ''} "
            "(Wang et al., USENIX Security 2017, section 4)."
        )
    return (
        "Invert the randomization channel of the compiled spec in design.json "
        "(ldp.build(spec).estimate(ldp.build(spec).aggregate(reports)))."
    )


def _protected_blocks(
    question: Question, revisions: dict[int, dict], used: set[int]
) -> list[Block]:
    """One block per report layout: the current spec's, then any older ones."""
    current = question.spec
    groups: dict[tuple, list[int]] = {_layout(current): [question.spec_revision]}
    specs: dict[tuple, dict] = {_layout(current): current}
    for revision in sorted(used):
        spec = revisions.get(revision, current)
        layout = _layout(spec)
        groups.setdefault(layout, [])
        specs.setdefault(layout, spec)
        if revision not in groups[layout]:
            groups[layout].append(revision)
    blocks = []
    for index, (layout, members) in enumerate(groups.items()):
        suffix = "" if index == 0 else f"_r{min(members)}"
        block = _protected_block(
            question, specs[layout], f"q{question.position}{suffix}", max(members)
        )
        block.revisions = frozenset(members)
        if len(used) > 1:
            block.revision_column = f"q{question.position}{suffix}_rev"
        blocks.append(block)
    return blocks


def _protected_block(question: Question, spec: dict, base: str, revision: int) -> Block:
    mechanism = ldp.build(spec)
    name = spec["mechanism"]
    short = name.upper() if len(name) <= 4 else mechanism_label(name)
    eps = epsilon_3(mechanism.epsilon)
    warning = f"randomized report ({short}, eps={eps}): not the respondent's answer"
    common = {
        "question_id": question.pk,
        "position": question.position,
        "question": question.text,
        "kind": question.kind,
        "protected": True,
        "mechanism": name,
        # The researcher's forced-response design (its split) names the
        # current revision; earlier revisions keep the method's name.
        "mechanism_label": (
            design_label(name, question.design)
            if revision == question.spec_revision
            else mechanism_label(name)
        ),
        "epsilon": eps,
        "epsilon_exact": str(mechanism.epsilon_exact),
        "spec_revision": revision,
        "debias": _debias(mechanism, name),
    }
    labels = _choice_labels(question)
    ordered = "ordinal" if question.kind == Question.Kind.ORDINAL else "nominal"

    def var(var_name: str, label: str, **extra: Any) -> Variable:
        return Variable(name=var_name, label=label, **common, **extra)

    if name in INDEX_MECHANISMS:
        k = mechanism.k
        values = {v: labels.get(v, str(v)) for v in range(k)}
        if name == "padding_sampling":
            values.update({k + j: PAD_LABEL.format(j + 1) for j in range(spec["ell"])})
        variable = var(
            base,
            f"{warning}: {question.text}",
            value_labels=values,
            measure=ordered,
            factor=True,
        )
        return Block(question, [variable], lambda payload: [payload], spec=spec)
    if name in BIT_MECHANISMS:
        variables = [
            var(
                f"{base}_opt{v + 1}",
                f"{warning}: bit for “{labels.get(v, v)}”: {question.text}",
                value_labels={0: "bit 0", 1: "bit 1"},
            )
            for v in range(mechanism.k)
        ]
        return Block(question, variables, list, spec=spec)
    if name == "olh":
        variables = [
            var(f"{base}_a", f"{warning}: hash seed a", measure="scale"),
            var(f"{base}_b", f"{warning}: hash seed b", measure="scale"),
            var(f"{base}_y", f"{warning}: reported hash value y"),
        ]
        return Block(question, variables, list, spec=spec)
    if name == "hadamard":
        variables = [
            var(f"{base}_j", f"{warning}: Hadamard row j"),
            var(
                f"{base}_bit",
                f"{warning}: reported bit",
                value_labels={0: "bit 0", 1: "bit 1"},
            ),
        ]
        return Block(question, variables, list, spec=spec)
    if name in KERNEL_MECHANISMS:
        low, step = Decimal(spec["low"]), Decimal(spec["step"])

        def value(payload: Any) -> list[Any]:
            return [float(low + int(payload) * step)]

        variable = var(
            base, f"{warning}: reported value: {question.text}", measure="scale"
        )
        return Block(question, [variable], value, spec=spec)
    if name == "duchi":
        variable = var(
            base,
            f"{warning}: {question.text}",
            value_labels={0: "−B (the low report)", 1: "+B (the high report)"},
        )
        return Block(question, [variable], lambda payload: [payload], spec=spec)
    # piecewise: an output index on the mechanism's own output grid.
    variable = var(base, f"{warning}: reported output index: {question.text}")
    return Block(question, [variable], lambda payload: [payload], spec=spec)


def _plain_block(question: Question) -> Block:
    common = {
        "question_id": question.pk,
        "position": question.position,
        "question": question.text,
        "kind": question.kind,
        "protected": False,
        "debias": "Not randomized: the respondent's answer, use as is.",
    }
    base = f"q{question.position}"
    labels = _choice_labels(question)
    note = "answer (not protected)"
    if question.kind == Question.Kind.MULTI_SELECT:
        variables = [
            Variable(
                name=f"{base}_opt{v + 1}",
                label=f"{note}: selected “{label}”: {question.text}",
                value_labels={0: "not selected", 1: "selected"},
                **common,
            )
            for v, label in labels.items()
        ]

        def selected(value: Any) -> list[Any]:
            chosen = set(value)
            return [int(v in chosen) for v in labels]

        return Block(question, variables, selected)
    if question.kind == Question.Kind.NUMERIC:
        variable = Variable(
            name=base, label=f"{note}: {question.text}", measure="scale", **common
        )
        return Block(question, [variable], lambda value: [float(Decimal(value))])
    measure = "ordinal" if question.kind == Question.Kind.ORDINAL else "nominal"
    variable = Variable(
        name=base,
        label=f"{note}: {question.text}",
        value_labels=labels,
        measure=measure,
        factor=True,
        **common,
    )
    return Block(question, [variable], lambda value: [value])


def blocks(survey: Survey) -> list[Block]:
    """The wide table's column blocks, in question order."""
    revisions = spec_revisions(survey)
    used: dict[int, set[int]] = {}
    for question_id, revision in (
        Report.objects.filter(survey=survey)
        .values_list("question_id", "spec_revision")
        .distinct()
    ):
        used.setdefault(question_id, set()).add(revision)
    found: list[Block] = []
    for question in survey.questions.all():
        if question.is_private and question.spec:
            found.extend(
                _protected_blocks(
                    question,
                    revisions.get(question.pk, {}),
                    used.get(question.pk, set()),
                )
            )
        elif not question.is_private:
            found.append(_plain_block(question))
    return found


LINK_COLUMN = "link_{}"
# Each response's language, only where the survey records it (an unprotected
# field the researcher declares: see surveys.authoring.translations).
LANGUAGE_COLUMN = "language"


def link_names(survey: Survey) -> list[str]:
    """The survey's link fields, then any stored under a name since removed."""
    declared = list(survey.link_fields)
    stored = (
        LinkValue.objects.filter(submission__survey=survey)
        .exclude(name__in=declared)
        .values_list("name", flat=True)
        .distinct()
    )
    return declared + sorted(stored)


def variables(
    survey: Survey,
    found: list[Block] | None = None,
    links: list[str] | None = None,
    language: bool | None = None,
) -> list[Variable]:
    """Every variable of the wide table (the codebook): the id column, the
    response's language if the survey records it, the link fields' values
    (text), then the questions' columns."""
    found = blocks(survey) if found is None else found
    links = link_names(survey) if links is None else links
    if language is None:
        language = survey_records_language(survey)
    out = [
        Variable(
            name=ID_COLUMN,
            question_id=0,
            position=0,
            question="",
            kind="id",
            protected=False,
            label="respondent: random public id of the submission (no order, no time)",
            debias="An identifier; links nothing outside this survey's exports.",
        )
    ]
    if language:
        out.append(
            Variable(
                name=LANGUAGE_COLUMN,
                question_id=0,
                position=0,
                question="",
                kind="language",
                protected=False,
                label=(
                    "language the respondent read the survey in (unprotected: "
                    "it tells something about the respondent)"
                ),
                debias="Recorded as the survey declared; not randomized.",
                text=True,
            )
        )
    out.extend(
        Variable(
            name=LINK_COLUMN.format(name),
            question_id=0,
            position=0,
            question="",
            kind="link_field",
            protected=False,
            label=f"from the survey link: {name} (identifies the respondent)",
            debias="Sent as it was in the respondent's survey link; not randomized.",
            text=True,
        )
        for name in links
    )
    for block in found:
        out.extend(block.variables)
        if block.revision_column:
            first = block.variables[0]
            out.append(
                Variable(
                    name=block.revision_column,
                    question_id=first.question_id,
                    position=first.position,
                    question=first.question,
                    kind=first.kind,
                    protected=True,
                    mechanism=first.mechanism,
                    mechanism_label=first.mechanism_label,
                    label="spec revision the report was made under",
                    debias="Estimate each revision separately (its spec is in "
                    "design.json).",
                )
            )
    return out


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
        .values_list("submission__public_id", "question_id", "value")
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
        for question_id, value in answers:
            for block in by_question.get(question_id, []):
                cells[id(block)] = block.decode(value)
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
def _frame(survey: Survey, progress: Progress) -> tuple[Any, list[Variable]]:
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
    return frame, columns


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

    frame, columns = _frame(survey, progress)
    _copy_from_temporary(
        lambda path: pyreadstat.write_sav(
            frame,
            path,
            file_label=f"Deniable survey {survey.pk}: randomized reports"[:64],
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


def write_dta(survey: Survey, fileobj: BinaryIO, progress: Progress = None) -> None:
    """Stata ``.dta``: variable labels (≤ 80 characters) and value labels."""
    import pyreadstat

    frame, columns = _frame(survey, progress)
    _copy_from_temporary(
        lambda path: pyreadstat.write_dta(
            frame,
            path,
            file_label=stata_label(f"Deniable survey {survey.pk}: randomized reports"),
            column_labels=[stata_label(v.label) for v in columns],
            variable_value_labels=_labels(columns),
            version=15,
        ),
        fileobj,
    )


# --- R ------------------------------------------------------------------------------
R_HELPERS = r"""share <- function(count, n, p, q, scale = 1) {
  scale * (count / n - q) / (p - q)
}
show <- function(title, labels, count, n, p, q, scale = 1) {
  cat("\n", title, " (n = ", n, ")\n", sep = "")
  shares <- data.frame(answer = labels, estimate = share(count, n, p, q, scale))
  print(shares)
  invisible(shares)
}
estimates <- list()  # each frequency question's shares, by variable name
keep_rows <- function(d, column, revision_column, revision) {
  keep <- !is.na(d[[column]])
  if (!is.na(revision_column)) keep <- keep & d[[revision_column]] == revision
  keep
}
estimate_levels <- function(d, column, labels, p, q, scale = 1, title = column,
                            revision_column = NA, revision = NA) {
  keep <- keep_rows(d, column, revision_column, revision)
  count <- as.numeric(table(d[[column]][keep]))[seq_along(labels)]
  show(title, labels, count, sum(keep), p, q, scale)
}
estimate_bits <- function(d, columns, labels, p, q, title = columns[1],
                          revision_column = NA, revision = NA) {
  keep <- keep_rows(d, columns[1], revision_column, revision)
  count <- colSums(d[keep, columns, drop = FALSE])
  show(title, labels, count, sum(keep), p, q)
}
estimate_olh <- function(d, columns, labels, g, p, q, title = columns[1],
                         revision_column = NA, revision = NA) {
  keep <- keep_rows(d, columns[1], revision_column, revision)
  a <- d[[columns[1]]][keep]; b <- d[[columns[2]]][keep]; y <- d[[columns[3]]][keep]
  count <- sapply(seq_along(labels) - 1, function(v) {
    sum(((a * v + b) %% 2147483647) %% g == y)
  })
  show(title, labels, count, sum(keep), p, q)
}
parity <- function(x) {
  out <- integer(length(x))
  while (any(x > 0)) { out <- bitwXor(out, bitwAnd(x, 1L)); x <- bitwShiftR(x, 1L) }
  out
}
estimate_hadamard <- function(d, columns, labels, p, q, title = columns[1],
                              revision_column = NA, revision = NA) {
  keep <- keep_rows(d, columns[1], revision_column, revision)
  j <- d[[columns[1]]][keep]; bit <- d[[columns[2]]][keep]
  count <- sapply(seq_along(labels) - 1, function(v) {
    sum(bit == 1L - parity(bitwAnd(j, v)))
  })
  show(title, labels, count, sum(keep), p, q)
}
"""


def _r_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _r_vector(items: Iterable[Any]) -> str:
    return (
        "c("
        + ", ".join(_r_string(i) if isinstance(i, str) else repr(i) for i in items)
        + ")"
    )


def _r_class(variable: Variable) -> str:
    """Text for factors and the id; doubles for numbers (OLH seeds exceed R's
    32-bit integers once multiplied); integers for codes and bits."""
    if variable.name == ID_COLUMN or variable.factor or variable.text:
        return "character"
    return "numeric" if variable.measure == "scale" else "integer"


def r_script(survey: Survey, csv_name: str | None = None) -> str:
    """An R script that reads the wide CSV and prints each frequency question's
    debiased shares ``f̂_v = scale·(C_v/n − q*)/(p* − q*)``."""
    found = blocks(survey)
    columns = variables(survey, found)
    csv_name = csv_name or f"survey-{survey.pk}-wide.csv"
    lines = [
        # One line whatever the title holds: a comment never ends early.
        f"# Deniable survey {survey.pk}: {' '.join(survey.title.split())}",
        "# Reads the wide CSV export (one row per respondent) with factors whose",
        "# levels are the codebook's value labels, then prints the debiased shares",
        "# of every frequency question, as the dashboard shows them.",
        "# Columns of protected questions hold randomized reports, not answers.",
        "",
        R_HELPERS,
        "d <- read.csv(",
        f"  {_r_string(csv_name)},",
        '  fileEncoding = "UTF-8-BOM", na.strings = "", check.names = FALSE,',
        "  colClasses = c(",
    ]
    lines.append(
        ",\n".join(
            f"    {_r_string(v.name)} = {_r_string(_r_class(v))}" for v in columns
        )
    )
    lines.append("  )\n)")
    lines.append(
        "# levels: the cells as the CSV writes them (a label a spreadsheet would "
        "run as a\n# formula starts with '); labels: the codebook's value labels."
    )
    for variable in columns:
        if variable.factor:
            labels = list(variable.value_labels.values())
            cells = [neutralise(label) for label in labels]
            name = _r_string(variable.name)
            lines.append(
                f"d[[{name}]] <- factor(d[[{name}]], levels = {_r_vector(cells)}, "
                f"labels = {_r_vector(labels)})"
            )
    for block in found:
        lines.extend(_r_estimate(block))
    return "\n".join(lines) + "\n"


def _r_estimate(block: Block) -> list[str]:
    first = block.variables[0]
    if not first.protected or block.spec is None:
        return []
    revision_current = block.question.spec_revision
    if revision_current not in block.revisions:
        return [f"# {first.name}: made under an older spec; estimate it with ldp."]
    mechanism = ldp.build(block.spec)
    name = block.spec["mechanism"]
    title = (
        f"{first.name}: {block.question.text} "
        f"({first.mechanism_label}, eps={first.epsilon})"
    )
    if not isinstance(mechanism, FrequencyOracle | MultiSelectMechanism):
        return [
            "",
            f"# {title}: not a frequency question; estimate it with ldp "
            "(codebook: debias).",
        ]
    p, q = support_probabilities(mechanism)
    labels = _option_labels(block.question, mechanism.k)
    names = [v.name for v in block.variables]
    revision = (
        f", revision_column = {_r_string(block.revision_column)}, "
        f"revision = {revision_current}"
        if block.revision_column
        else ""
    )
    p_text = _r_vector(p) if isinstance(p, list) else repr(p)
    q_text = _r_vector(q) if isinstance(q, list) else repr(q)
    common = f"labels = {_r_vector(labels)}, p = {p_text}, q = {q_text}"
    heading = f"title = {_r_string(title)}{revision}"
    if name in INDEX_MECHANISMS:
        scale = getattr(mechanism, "scale", 1)
        call = (
            f"estimate_levels(d, {_r_string(first.name)}, {common}, "
            f"scale = {scale}, {heading})"
        )
    elif name in BIT_MECHANISMS:
        call = f"estimate_bits(d, {_r_vector(names)}, {common}, {heading})"
    elif name == "olh":
        call = (
            f"estimate_olh(d, {_r_vector(names)}, {common}, g = {mechanism.g}, "
            f"{heading})"
        )
    else:
        call = f"estimate_hadamard(d, {_r_vector(names)}, {common}, {heading})"
    return ["", f"estimates[[{_r_string(first.name)}]] <- {call}"]


def _option_labels(question: Question, k: int) -> list[str]:
    labels = _choice_labels(question)
    return [labels.get(v, str(v)) for v in range(k)]


def write_r(survey: Survey, fileobj: BinaryIO, progress: Progress = None) -> None:
    """An R script for the wide CSV (see ``r_script``)."""
    fileobj.write(r_script(survey).encode("utf-8"))
    if progress:
        progress(1.0)


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
