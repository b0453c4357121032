"""What the analysis selectors return: plain, frozen, JSON-friendly results.

The dashboard, exports and API read these; they never touch ldp or the
tallies themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class QuestionResult:
    """One private question's estimate from its current spec revision's tally.

    Margins: for shares (yes/no, single choice, multi-select) in share units
    against ``target_margin``; for ordinal and numeric questions, whose
    headline is the mean, in value units against ``target_margin`` times the
    answer range (as the survey builder plans them).
    """

    question_id: int
    position: int
    text: str
    kind: str
    spec_revision: int
    mechanism: str  # spec name, e.g. "grr"
    mechanism_label: str  # in words, e.g. "Generalized randomized response"
    epsilon: float  # delivered ε, rounded up
    n: int
    labels: list[str]  # one per estimated share (options, scale points, grid cells)
    estimate: list[float]  # unbiased shares (may be < 0 or > 1)
    standard_error: list[float]
    intervals: list[Interval]  # 95%, exact where the mechanism allows
    interval_method: str  # "exact" | "wilson" | "wald" | "t"
    consistent: list[float] | None  # norm-sub shares where they form a distribution
    mean: float | None
    mean_standard_error: float | None
    mean_interval: Interval | None
    margin_of_error: float  # 95% worst case at current n (or at 1 if n == 0)
    target_margin: float
    responses_needed: int  # more responses needed for target_margin (0 if met)
    influence_factor: float  # how far 1% fake respondents can move an estimate
    warnings: list[str]


@dataclass(frozen=True)
class SurveyResults:
    survey_id: int
    title: str
    total_epsilon: float  # sequential composition of the delivered ε
    questions: list[QuestionResult]  # private questions only, in position order
    not_protected: list[tuple[int, str]]  # (question_id, text) of plain questions
    refreshed_at: datetime | None  # when the tallies last advanced
    pending_reports: int  # reports stored past the watermark, not yet tallied
