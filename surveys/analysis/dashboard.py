"""Turn SurveyResults into what the dashboard shows: rows, charts, freshness.

Every number displayed comes straight from the result objects; this module
only formats them (and draws the SVG through ``charts``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from surveys.analysis import charts
from surveys.analysis.results import QuestionResult, SurveyResults

SHARE_KINDS = {"yes_no", "single_choice", "multi_select"}
MEAN_KINDS = {"ordinal", "numeric"}
TABLE_ROWS_MAX = 40  # numeric grids can have ~1,000 cells: exports carry them all


def percent(value: float | None, digits: int = 1) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value * 100:.{digits}f}%"


def number(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.{digits}g}" if abs(value) >= 1000 else f"{value:.{digits}f}"


@dataclass(frozen=True)
class Row:
    label: str
    estimate: str
    low: str
    high: str
    consistent: str
    standard_error: str


@dataclass(frozen=True)
class QuestionCard:
    result: QuestionResult
    rows: list[Row]
    rows_hidden: int
    chart: str
    shares_in_units: bool  # margin in value units (mean kinds) or points
    margin: str
    target: str
    mean: str
    mean_low: str
    mean_high: str
    mean_se: str
    influence: str  # what 1% fake respondents can do to the headline estimate
    influence_on: str  # "the mean" or "a share"
    scale_note: str  # how an ordinal mean is numbered


def _rows(result: QuestionResult) -> list[Row]:
    if not result.n or not result.estimate:
        return []
    consistent = result.consistent or [None] * len(result.labels)
    return [
        Row(
            label=label,
            estimate=percent(estimate),
            low=percent(interval.low),
            high=percent(interval.high),
            consistent=percent(fixed),
            standard_error=percent(se, 2),
        )
        for label, estimate, interval, fixed, se in zip(
            result.labels,
            result.estimate,
            result.intervals,
            consistent,
            result.standard_error,
            strict=True,
        )
    ]


def _chart(result: QuestionResult) -> str:
    if not result.n or not result.estimate or len(result.labels) > TABLE_ROWS_MAX:
        return ""
    consistent = result.consistent or [None] * len(result.labels)
    bars = [
        charts.Bar(label, est, interval.low, interval.high, fixed)
        for label, est, interval, fixed in zip(
            result.labels, result.estimate, result.intervals, consistent, strict=True
        )
    ]
    desc = "; ".join(
        f"{b.label}: {percent(b.estimate)} (95% interval {percent(b.low)} to "
        f"{percent(b.high)})"
        for b in bars
    )
    return charts.interval_chart(
        chart_id=f"chart-q{result.question_id}",
        title=f"Estimated shares for “{result.text}”",
        desc=(
            f"Bars: unbiased estimates from {result.n} randomized reports; "
            f"whiskers: 95% intervals; dots: consistent estimates. {desc}."
        ),
        bars=bars,
    )


def question_card(result: QuestionResult) -> QuestionCard:
    in_units = result.kind in MEAN_KINDS
    fmt = number if in_units else (lambda v: percent(v, 1))
    mean_interval = result.mean_interval
    return QuestionCard(
        result=result,
        rows=_rows(result)[:TABLE_ROWS_MAX],
        rows_hidden=max(len(result.labels) - TABLE_ROWS_MAX, 0),
        chart=_chart(result),
        shares_in_units=in_units,
        margin=fmt(result.margin_of_error),
        target=fmt(result.target_margin),
        mean=number(result.mean),
        mean_low=number(mean_interval.low if mean_interval else None),
        mean_high=number(mean_interval.high if mean_interval else None),
        mean_se=number(result.mean_standard_error),
        influence=(
            number(result.influence_factor)
            if result.kind == "numeric"  # the mean, in answer units
            else f"{result.influence_factor * 100:.1f} points"
        ),
        influence_on="the mean" if result.kind == "numeric" else "a share",
        scale_note=(
            f"on the scale numbered 0 ({result.labels[0]}) to "
            f"{len(result.labels) - 1} ({result.labels[-1]})"
            if result.kind == "ordinal" and result.labels
            else ""
        ),
    )


def freshness(results: SurveyResults, now: datetime | None = None) -> str:
    """For example "updated 12 s ago, 40 reports pending"."""
    now = now or timezone.now()
    if results.refreshed_at is None:
        updated = "not tallied yet"
    else:
        seconds = max(int((now - results.refreshed_at).total_seconds()), 0)
        if seconds < 120:
            ago = f"{seconds} s"
        elif seconds < 7200:
            ago = f"{seconds // 60} min"
        elif seconds < 172800:
            ago = f"{seconds // 3600} h"
        else:
            ago = f"{seconds // 86400} days"
        updated = f"updated {ago} ago"
    pending = results.pending_reports
    noun = "report" if pending == 1 else "reports"
    return f"{updated}, {pending} {noun} pending"


def cards(results: SurveyResults) -> list[QuestionCard]:
    return [question_card(r) for r in results.questions]
