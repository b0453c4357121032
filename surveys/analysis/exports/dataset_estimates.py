"""The debiased estimates that SPSS and Stata files carry beside the reports.

A protected scale or number question's columns hold randomized reports, which
SPSS and Stata users cannot debias with a menu: next to them the ``.sav`` and
``.dta`` files carry the question's debiased mean and its 95% interval, the
numbers of the estimates file (the dashboard's latest results), as three
columns whose value is the same in every row (``q<n>_mean``, ``q<n>_mean_lo``,
``q<n>_mean_hi``), and the SPSS file lists them in its document (notes) too.
The mean is ``vᵀ (Qᵀ)⁺ c/n`` on a scale and the score mean ``Σ c_y s_y/n`` for
a number (docs/maths.md, sections 5 and 6); the R script recomputes both from
the reports.
"""

from __future__ import annotations

from dataclasses import dataclass

from surveys.analysis.exports.dataset_columns import Block, Variable
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import QuestionResult
from surveys.authoring import kinds
from surveys.authoring.models import Survey

# (suffix, what the column holds); every label ends "same in every row".
ESTIMATE_COLUMNS = (
    ("_mean", "debiased mean"),
    ("_mean_lo", "debiased mean, 95% interval low end"),
    ("_mean_hi", "debiased mean, 95% interval high end"),
)


@dataclass(frozen=True)
class EstimateColumns:
    """One question's estimate columns and their values."""

    variables: list[Variable]
    values: list[float]
    note: str  # one line of the SPSS document


def _result_by_question(survey: Survey) -> dict[int, QuestionResult]:
    results = selectors.latest_results(survey=survey).results
    if results is None:
        return {}
    return {q.question_id: q for q in results.questions}


def estimate_columns(survey: Survey, found: list[Block]) -> list[EstimateColumns]:
    """The estimate columns of every protected scale or number question with
    a mean in the latest results, after the question's report columns'
    order (question order)."""
    results = _result_by_question(survey)
    out = []
    for block in found:
        first = block.variables[0]
        question = block.question
        result = results.get(question.pk)
        if (
            not first.protected
            or not kinds.facts(question.kind).in_units
            or question.spec_revision not in block.revisions
            or result is None
            or result.mean is None
            or result.mean_interval is None
        ):
            continue
        base = f"q{question.position}"
        values = [result.mean, result.mean_interval.low, result.mean_interval.high]
        variables = [
            Variable(
                name=base + suffix,
                question_id=question.pk,
                position=question.position,
                question="",
                kind="estimate",
                protected=False,
                mechanism=first.mechanism,
                mechanism_label=first.mechanism_label,
                epsilon=first.epsilon,
                epsilon_exact=first.epsilon_exact,
                spec_revision=question.spec_revision,
                label=f"{base} {what}, n={result.n} (same in every row)",
                measure="scale",
                debias="The estimates file's number for the whole sample.",
                missing_codes=False,
            )
            for suffix, what in ESTIMATE_COLUMNS
        ]
        note = (
            f"{base} ({question.text}): debiased mean {result.mean:.6g}, 95% "
            f"interval {result.mean_interval.low:.6g} to "
            f"{result.mean_interval.high:.6g} (n = {result.n}, "
            f"{result.mechanism_label}, eps = {first.epsilon})"
        )
        out.append(EstimateColumns(variables, values, note))
    return out
