"""The estimates as files: one CSV row per answer, and one JSON document.

Every number is the dashboard's (``SurveyResults``); the method sentence says
how each was computed.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

from surveys.analysis import wording
from surveys.analysis.exports.csv_cells import csv_lines
from surveys.analysis.results.objects import ItemCounts, QuestionResult, SurveyResults
from surveys.authoring import kinds

METHOD = (
    "Unbiased estimates by inverting each question's randomization channel "
    "(frequency oracles: (C/n − q*)/(p* − q*)); consistent estimates are the "
    "Euclidean projection onto the simplex (Norm-Sub) or, where the researcher "
    "chose it, the maximum-likelihood distribution through the randomization "
    "(EM); the consistent_method column names the one used. Scales and numbers also "
    "have a binned distribution: the constrained maximum-likelihood level "
    "distribution (EM) summed into bins, with Wald intervals from the debiased "
    "shares' covariance (never narrower than the Clopper–Pearson interval of the "
    "same share of n direct answers), and the median with its Woodruff interval "
    "widened by half a grid step on each side."
)
# What a per-answer row is, in the CSV's "row_type" column.
RAW_LEVEL = "raw per-level inversion (unbiased; can be negative; not a distribution)"
SHARE = "share"
BIN = "bin share (constrained maximum likelihood, Wald interval)"


ITEM_COLUMNS = ("answered", "not_shown", "left_blank", "declined", "unknown")


def item_cells(items: ItemCounts | None) -> list[Any]:
    """The ``ITEM_COLUMNS`` cells of a question ("" under an older snapshot)."""
    if items is None:
        return [""] * len(ITEM_COLUMNS)
    return [getattr(items, name) for name in ITEM_COLUMNS]


def item_document(items: ItemCounts | None) -> dict[str, int] | None:
    """The API's ``item_counts`` of a question (None under an older snapshot)."""
    if items is None:
        return None
    return {name: getattr(items, name) for name in ITEM_COLUMNS}


ESTIMATE_COLUMNS = [
    "survey_id",
    "question_id",
    "position",
    "question",
    "kind",
    "mechanism",
    "mechanism_label",
    "epsilon",
    "spec_revision",
    "n",
    "row_type",
    "answer",
    "estimate",
    "standard_error",
    "ci_low",
    "ci_high",
    "interval_method",
    "consistent",
    "consistent_method",
    "mean",
    "mean_standard_error",
    "mean_ci_low",
    "mean_ci_high",
    "median",
    "median_ci_low",
    "median_ci_high",
    "margin_of_error",
    "target_margin",
    "responses_needed",
    "influence_factor",
    "warnings",
    # How the covered submissions met the question (``ItemCounts``).
    *ITEM_COLUMNS,
]
# A not-protected question's row: its answers are in the raw export, its
# counts of answered, not shown, left blank and declined here.
NOT_PROTECTED = "not protected (item counts only)"


def _question_rows(
    survey_id: int, q: QuestionResult, items: ItemCounts | None = None
) -> Iterator[list[Any]]:
    mean_interval = q.mean_interval
    d = q.distribution
    row_type = RAW_LEVEL if kinds.facts(q.kind).in_units else SHARE
    rows: list[tuple[str, str, Any, Any, Any, Any, str]] = []
    if q.estimate:
        consistent = q.consistent or [None] * len(q.estimate)
        rows.extend(
            (row_type, label, est, se, interval, fixed, q.interval_method)
            for label, est, se, interval, fixed in zip(
                q.labels,
                q.estimate,
                q.standard_error,
                q.intervals,
                consistent,
                strict=True,
            )
        )
    if d is not None:
        rows.extend(
            (BIN, label, share, "", interval, None, "wald")
            for label, share, interval in zip(
                d.labels, d.shares, d.intervals, strict=True
            )
        )
    if not rows:
        # No per-answer shares (no reports yet, or a mean-only mechanism such as
        # Duchi's): one row still carries n, ε, the mean and the warnings.
        rows.append(("", "", "", "", None, None, q.interval_method))
    for kind, label, est, se, interval, fixed, method in rows:
        yield [
            survey_id,
            q.question_id,
            q.position,
            q.text,
            q.kind,
            q.mechanism,
            q.mechanism_label,
            q.epsilon,
            q.spec_revision,
            q.n,
            kind,
            label,
            est,
            se,
            "" if interval is None else interval.low,
            "" if interval is None else interval.high,
            method,
            "" if fixed is None else fixed,
            "" if fixed is None else q.consistent_method or "",
            "" if q.mean is None else q.mean,
            "" if q.mean_standard_error is None else q.mean_standard_error,
            "" if mean_interval is None else mean_interval.low,
            "" if mean_interval is None else mean_interval.high,
            "" if d is None else d.median,
            "" if d is None else d.median_interval.low,
            "" if d is None else d.median_interval.high,
            q.margin_of_error,
            q.target_margin,
            q.responses_needed,
            q.influence_factor,
            " | ".join(wording.english(w) for w in q.warnings),
            *item_cells(items),
        ]


def _plain_rows(results: SurveyResults) -> Iterator[list[Any]]:
    """One row per not-protected question: its counts, nothing estimated."""
    items = results.items()
    summaries = {p.question_id: p for p in results.plain}
    before = len(ESTIMATE_COLUMNS) - len(ITEM_COLUMNS)
    for pk, text in results.not_protected:
        row: list[Any] = [""] * before
        row[:5] = [
            results.survey_id,
            pk,
            "",
            text,
            getattr(summaries.get(pk), "kind", ""),
        ]
        row[ESTIMATE_COLUMNS.index("n")] = getattr(summaries.get(pk), "n", 0)
        row[ESTIMATE_COLUMNS.index("row_type")] = NOT_PROTECTED
        yield [*row, *item_cells(items.get(pk))]


def estimates_csv(results: SurveyResults) -> Iterator[str]:
    items = results.items()
    rows = itertools.chain(
        (
            row
            for q in results.questions
            for row in _question_rows(results.survey_id, q, items.get(q.question_id))
        ),
        _plain_rows(results),
    )
    return csv_lines(ESTIMATE_COLUMNS, rows)


def _question_document(q: QuestionResult, items: ItemCounts | None) -> dict[str, Any]:
    """A question's fields, with what its per-answer shares are ("estimate_kind")."""
    document = dataclasses.asdict(q)
    # In English whatever the reader's language, as exports always carried them
    # (the design is already named in ``mechanism_label``).
    document["warnings"] = [wording.english(w) for w in q.warnings]
    document.pop("design")
    document["estimate_kind"] = RAW_LEVEL if kinds.facts(q.kind).in_units else SHARE
    document["item_counts"] = item_document(items)
    return document


def estimates_document(results: SurveyResults) -> dict[str, Any]:
    """The estimates as one JSON-able dict (also the API's survey resource)."""
    items = results.items()
    plain = {
        p.question_id: {
            **dataclasses.asdict(p),
            "item_counts": item_document(items.get(p.question_id)),
        }
        for p in results.plain
    }
    return {
        "survey_id": results.survey_id,
        "title": results.title,
        "total_epsilon": results.total_epsilon,
        "refreshed_at": (
            results.refreshed_at.isoformat() if results.refreshed_at else None
        ),
        "pending_reports": results.pending_reports,
        "computed_at": (
            results.computed_at.isoformat() if results.computed_at else None
        ),
        "responses": results.responses,
        "pending_responses": results.pending_responses,
        "snapshot_version": results.version,
        "confidence_level": 0.95,
        "method": METHOD,
        "questions": [
            _question_document(q, items.get(q.question_id)) for q in results.questions
        ],
        "not_protected": [
            plain.get(pk, {"question_id": pk, "text": text})
            for pk, text in results.not_protected
        ],
    }
