"""The per-respondent table's columns: one block per question, described by
its codebook row.

A protected question's columns are the ones its mechanism declares for its
reports (``export_columns`` in its ``ldp`` module), one block per report
layout its spec revisions used; an unprotected question's are its answer (a
factor, a number, or one 0/1 column per option).  Every label of a protected
column says it holds the REPORTED value, randomized on the respondent's device,
not the respondent's answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

import ldp
from ldp.mechanisms.about import ANSWERS
from surveys.analysis.exports.design import spec_revisions
from surveys.authoring import kinds
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.designs import design_label
from surveys.authoring.models import Question, Survey
from surveys.collection import missing
from surveys.collection.models import LinkValue, Report
from surveys.collection.questions import answer_choices, other_value
from surveys.collection.selectors import survey_records_language

Progress = Callable[[float], None] | None
ID_COLUMN = "respondent"
# A question that may be left unanswered (optional, or shown only under display
# logic) has a column saying why a row has no answer: "q<n>_missing".
REASON_SUFFIX = "_missing"


@dataclass(frozen=True)
class Missing:
    """A cell of a question the submission did not answer, and why: one of
    ``surveys.collection.missing``'s outcomes (not shown, left blank,
    declined, unknown)."""

    reason: str

    @property
    def code(self) -> int:
        """The outcome's export code (``missing.CODES``: −1, −2, −3, −9)."""
        return missing.CODES[self.reason]


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
    # Whether the negative missing-value codes can be written into the column
    # (False where an answer's value may itself be negative).
    missing_codes: bool = True

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
    "missing_values",
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
    # "Other, please specify": the block's last variable holds the words
    # typed beside "Other" (``PlainAnswer.other_text``), not decoded.
    other: bool = False
    reason_column: str | None = None  # "q<n>_missing" after a question's last block


def choice_labels(question: Question) -> dict[int, str]:
    return dict(sorted(answer_choices(question)))


def _layout(spec: dict) -> tuple:
    """What decides a report's shape and meaning (not the weights or ε)."""
    keys = ("mechanism", "k", "low", "high", "step", "ell", "g")
    return tuple(spec.get(key) for key in keys)


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
    """The columns the question's mechanism declares for its reports
    (``export_columns``), each label saying it holds a randomized report."""
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
        "debias": mechanism.debias_note(),
    }
    labels = choice_labels(question)
    ordered = "ordinal" if kinds.facts(question.kind).ordered else "nominal"
    variables = []
    for column in mechanism.export_columns():
        values = {v: labels.get(v, str(v)) for v in range(column.answers)}
        values.update(column.value_labels)
        option = "" if column.option is None else labels.get(column.option, "")
        label = column.label.format(question=question.text, option=option)
        variables.append(
            Variable(
                name=base + column.suffix,
                label=f"{warning}: {label}",
                value_labels=values,
                measure=ordered if column.measure == ANSWERS else column.measure,
                factor=column.factor,
                missing_codes=column.measure != "scale"
                or float(getattr(mechanism, "low", -1)) >= 0,
                **common,
            )
        )
    return Block(question, variables, mechanism.export_cells, spec=spec)


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
    labels = choice_labels(question)
    note = "answer (not protected)"
    kind = kinds.facts(question.kind)
    if kind.free_text:
        variable = Variable(
            name=base,
            label=f"{note}, typed text (can identify the respondent): {question.text}",
            text=True,
            **common,
        )
        return Block(question, [variable], lambda value: [value])
    block = _plain_choice_block(question, base, labels, common)
    if other_value(question) is not None:
        block.variables.append(
            Variable(
                name=f"{base}_other",
                label=(
                    f"{note}, typed beside “Other” (can identify the respondent): "
                    f"{question.text}"
                ),
                text=True,
                **common,
            )
        )
        block.other = True
    return block


def _plain_choice_block(
    question: Question, base: str, labels: dict[int, str], common: dict[str, Any]
) -> Block:
    """The columns of an unprotected choice or number question's answer."""
    note = "answer (not protected)"
    kind = kinds.facts(question.kind)
    if kind.several:
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
    if kind.grid:
        variable = Variable(
            name=base,
            label=f"{note}: {question.text}",
            measure="scale",
            missing_codes=question.numeric_low is not None
            and question.numeric_low >= 0,
            **common,
        )
        return Block(question, [variable], lambda value: [float(Decimal(value))])
    measure = "ordinal" if kind.ordered else "nominal"
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
        else:
            continue
        if question.optional or question.show_if:
            found[-1].reason_column = f"q{question.position}{REASON_SUFFIX}"
    return found


def _reason_variable(block: Block) -> Variable:
    """The column that says why a row has no answer to the block's question."""
    first = block.variables[0]
    return Variable(
        name=block.reason_column or "",
        question_id=first.question_id,
        position=first.position,
        question=first.question,
        kind="missing_reason",
        protected=False,
        label=f"why {block.question.text} has no answer (empty: answered)",
        value_labels={missing.CODES[r]: missing.LABELS[r] for r in missing.CODES},
        debias="Not randomized: whether and how the question went unanswered.",
        factor=True,
        missing_codes=False,
    )


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
            missing_codes=False,
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
                missing_codes=False,
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
            missing_codes=False,
        )
        for name in links
    )
    for block in found:
        out.extend(block.variables)
        if block.reason_column:
            reason = _reason_variable(block)
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
                    missing_codes=False,
                )
            )
        if block.reason_column:
            out.append(reason)
    return out
