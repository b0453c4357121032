"""An R script that reads the per-respondent CSV and prints each frequency
question's debiased shares, as the dashboard shows them.

The debiasing of each mechanism is its own R estimator (``r_estimator`` in its
``ldp`` module); this module writes the shared helpers, the CSV's column
classes and factors, and one call per frequency question.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, BinaryIO

import ldp
from ldp.mechanisms import registry
from surveys.analysis.exports.csv_cells import neutralise
from surveys.analysis.exports.dataset_columns import (
    ID_COLUMN,
    Block,
    Progress,
    Variable,
    blocks,
    choice_labels,
    variables,
)
from surveys.authoring.models import Question, Survey

R_SHARED = r"""share <- function(count, n, p, q, scale = 1) {
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
"""


def r_helpers() -> str:
    """The shared helpers, then each registered mechanism's R estimator
    (``r_estimator`` in its ldp module), each defined once."""
    sources = dict.fromkeys(
        family.r_estimator.source
        for family in registry.MECHANISMS
        if family.r_estimator is not None
    )
    return R_SHARED + "\n".join(sources) + "\n"


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
        r_helpers(),
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
    title = (
        f"{first.name}: {block.question.text} "
        f"({first.mechanism_label}, eps={first.epsilon})"
    )
    estimator = mechanism.r_estimator
    if estimator is None:
        return [
            "",
            f"# {title}: not a frequency question; estimate it with ldp "
            "(codebook: debias).",
        ]
    p, q = mechanism.support_constants()
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
    columns = _r_string(first.name) if estimator.one_column else _r_vector(names)
    extra = "".join(f", {k} = {v!r}" for k, v in mechanism.r_arguments().items())
    call = f"{estimator.name}(d, {columns}, {common}{extra}, {heading})"
    return ["", f"estimates[[{_r_string(first.name)}]] <- {call}"]


def _option_labels(question: Question, k: int) -> list[str]:
    labels = choice_labels(question)
    return [labels.get(v, str(v)) for v in range(k)]


def write_r(survey: Survey, fileobj: BinaryIO, progress: Progress = None) -> None:
    """An R script for the wide CSV (see ``r_script``)."""
    fileobj.write(r_script(survey).encode("utf-8"))
    if progress:
        progress(1.0)
