"""An R script that reads the per-respondent CSV and recomputes every protected
question's estimates from the randomized reports, as the estimates file has
them: per-answer shares with their standard errors and Norm-Sub consistent
shares, and for scales and numbers the mean with its standard error and 95%
interval and the binned distribution's bin shares and median
(``ldp.estimators.binned_r``; their Wald and Woodruff intervals stay the
estimates file's).

The debiasing of each mechanism is its own R estimator (``r_estimator`` in its
``ldp`` module, with the spec's constants from ``r_arguments``); this module
writes the shared helpers, the CSV's column classes and factors, and one call
per protected question.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, BinaryIO

import ldp
from ldp.estimators.binned_r import BINNED_R, binned_r_arguments
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
from surveys.analysis.results import bins, selectors
from surveys.authoring import kinds
from surveys.authoring.models import Question, Survey

R_SHARED = r"""share <- function(count, n, p, q, scale = 1) {
  scale * (count / n - q) / (p - q)
}
project_simplex <- function(v) {
  u <- sort(v, decreasing = TRUE)
  cumulative <- cumsum(u) - 1
  rho <- max(which(u - cumulative / seq_along(u) > 0))
  pmax(v - cumulative[rho] / rho, 0)
}
multinomial_mle <- function(count, p, q) {
  offsets <- q / max(p - q)
  ranked <- order(-count / offsets)
  for (size in seq_along(count)) {
    active <- ranked[seq_len(size)]
    mu <- sum(count[active]) / (1 + sum(offsets[active]))
    if (size == length(count)) break
    following <- ranked[size + 1]
    if (count[following] / mu <= offsets[following]) break
  }
  f <- pmax(count / mu - offsets, 0)
  f / sum(f)
}
consistent_shares <- function(estimate, count, n, p, q, multinomial = FALSE) {
  if (consistent_method != "mle") return(project_simplex(estimate))
  p <- rep_len(p, length(count)); q <- rep_len(q, length(count))
  if (multinomial) multinomial_mle(count, p, q) else
    binomial_mle(count, n, p, q, steps = 200L)
}
show <- function(title, labels, count, n, p, q, scale = 1, simplex = FALSE,
                 multinomial = FALSE) {
  cat("\n", title, " (n = ", n, ")\n", sep = "")
  lambda <- count / n
  shares <- data.frame(
    answer = labels, estimate = share(count, n, p, q, scale),
    standard_error = scale * sqrt(lambda * (1 - lambda) / n) / (p - q)
  )
  if (simplex) {
    shares$consistent <- consistent_shares(shares$estimate, count, n, p, q,
                                           multinomial)
  }
  print(shares)
  invisible(c(as.list(shares), list(n = n, count = as.vector(count))))
}
estimates <- list()  # each protected question's estimates, by variable name
keep_rows <- function(d, column, revision_column, revision) {
  keep <- !is.na(d[[column]])
  if (!is.na(revision_column)) keep <- keep & d[[revision_column]] == revision
  keep
}
"""


def r_helpers() -> str:
    """The shared helpers, each registered mechanism's R estimator
    (``r_estimator`` in its ldp module), each defined once, and the binned
    distribution's fit (``ldp.estimators.binned_r``)."""
    sources = dict.fromkeys(
        family.r_estimator.source
        for family in registry.MECHANISMS
        if family.r_estimator is not None
    )
    return R_SHARED + "\n".join([*sources, BINNED_R]) + "\n"


def _r_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _r_vector(items: Iterable[Any]) -> str:
    return "c(" + ", ".join(_r_value(i) for i in items) + ")"


def _r_value(value: Any) -> str:
    """A constant as R reads it back exactly: numbers with 17 significant
    digits (``repr``), flags, NULL, vectors, and matrices (lists of rows)
    written row by row (read with ``matrix(..., byrow = TRUE)``)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return _r_string(value)
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], list | tuple):
            return _r_vector(item for row in value for item in row)
        return _r_vector(value)
    return repr(float(value)) if isinstance(value, float) else repr(int(value))


def _r_class(variable: Variable) -> str:
    """Text for factors and the id; doubles for numbers (OLH seeds exceed R's
    32-bit integers once multiplied); integers for codes and bits."""
    if variable.name == ID_COLUMN or variable.factor or variable.text:
        return "character"
    return "numeric" if variable.measure == "scale" else "integer"


def r_script(survey: Survey, csv_name: str | None = None) -> str:
    """An R script that reads the wide CSV and prints each protected question's
    estimates: shares ``f̂_v = scale·(C_v/n − q*)/(p* − q*)`` with
    ``SE = scale·sqrt(λ̂(1 − λ̂)/n)/(p* − q*)`` for frequency oracles, the
    channel inversion and the mean for scales and numbers."""
    found = blocks(survey)
    columns = variables(survey, found)
    method = selectors.consistent_method(survey_id=survey.pk)
    csv_name = csv_name or f"survey-{survey.pk}-wide.csv"
    lines = [
        # One line whatever the title holds: a comment never ends early.
        f"# Deniable survey {survey.pk}: {' '.join(survey.title.split())}",
        "# Reads the wide CSV export (one row per respondent) with factors whose",
        "# levels are the codebook's value labels, then recomputes every protected",
        "# question's estimates from the reports (shares, standard errors, means",
        "# and their intervals, and for scales and numbers the binned distribution's",
        "# bin shares and median), as the dashboard and the estimates file have them.",
        "# The bins' Wald and the median's Woodruff intervals are read from the",
        "# estimates file (computed there from the debiased shares' covariance).",
        "# Columns of protected questions hold randomized reports, not answers.",
        "",
        r_helpers(),
        "# The consistent shares the results page shows: the projection onto the",
        '# simplex ("norm-sub") or the maximum likelihood ("mle").',
        f"consistent_method <- {_r_string(method)}",
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
    cuts = selectors.question_cuts([block.question.pk for block in found])
    for block in found:
        lines.extend(_r_estimate(block, cuts.get(block.question.pk), method))
    return "\n".join(lines) + "\n"


def _r_estimate(
    block: Block, cuts: list[float] | None = None, method: str = "norm-sub"
) -> list[str]:
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
            f"# {title}: no R estimator; estimate it with ldp (codebook: debias).",
        ]
    labels = _option_labels(block.question, mechanism.k)
    names = [v.name for v in block.variables]
    revision = (
        f", revision_column = {_r_string(block.revision_column)}, "
        f"revision = {revision_current}"
        if block.revision_column
        else ""
    )
    common = f"labels = {_r_vector(labels)}"
    if hasattr(mechanism, "support_constants"):
        p, q = mechanism.support_constants()
        common += f", p = {_r_value(p)}, q = {_r_value(q)}"
    heading = f"title = {_r_string(title)}{revision}"
    columns = _r_string(first.name) if estimator.one_column else _r_vector(names)
    arguments = mechanism.r_arguments()
    if method == "mle" and arguments.get("identifiable"):
        # The channel, for the maximum-likelihood consistent shares.
        arguments["channel"] = mechanism.channel_matrix().tolist()
    extra = "".join(f", {k} = {_r_value(v)}" for k, v in arguments.items())
    call = f"{estimator.name}(d, {columns}, {common}{extra}, {heading})"
    name = _r_string(first.name)
    return ["", f"estimates[[{name}]] <- {call}", *_r_bins(block, mechanism, cuts)]


def _r_bins(
    block: Block, mechanism: ldp.Mechanism, cuts: list[float] | None
) -> list[str]:
    """Scales and numbers: the binned distribution's bin shares and median,
    from the counts the estimator returned, in the dashboard's bins."""
    facts = kinds.facts(block.question.kind)
    chosen = facts.in_units and bins.bin_cuts(mechanism, cuts, numeric=facts.grid)
    if not chosen:
        return []
    values, used, _ = chosen
    name = _r_string(block.variables[0].name)
    arguments = "".join(
        f", {k} = {_r_value(v)}"
        for k, v in binned_r_arguments(mechanism, values, used).items()
    )
    return [
        f"estimates[[{name}]] <- c(estimates[[{name}]], estimate_bins(",
        f"  estimates[[{name}]]$count, estimates[[{name}]]$n{arguments}))",
    ]


def _option_labels(question: Question, k: int) -> list[str]:
    labels = choice_labels(question)
    return [labels.get(v, str(v)) for v in range(k)]


def write_r(survey: Survey, fileobj: BinaryIO, progress: Progress = None) -> None:
    """An R script for the wide CSV (see ``r_script``)."""
    fileobj.write(r_script(survey).encode("utf-8"))
    if progress:
        progress(1.0)
