"""What the analysis selectors return: plain, frozen, JSON-friendly results.

The dashboard, exports and API read these; they never touch ldp or the
tallies themselves.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from surveys.analysis import wording


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class Distribution:
    """The answer distribution of a scale or number question, in bins.

    The constrained maximum-likelihood level distribution summed into bins,
    with Wald intervals for the bins and Woodruff's for the median
    (``ldp.binned_distribution``, docs/maths.md, section 11).
    """

    labels: list[str]  # one per bin: "0–7", or a scale point's label
    shares: list[float]  # on the simplex: non-negative, summing to 1
    intervals: list[Interval]  # 95% Wald, from the debiased shares
    median: float
    median_interval: Interval
    method: str  # "constrained maximum likelihood, Wald and Woodruff intervals"
    cuts: list[float]  # the researcher's cut points ([] for the default bins)


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
    consistent: list[float] | None  # consistent shares where they form a distribution
    mean: float | None
    mean_standard_error: float | None
    mean_interval: Interval | None
    margin_of_error: float  # 95% worst case at current n (or at 1 if n == 0)
    target_margin: float
    responses_needed: int  # more responses needed for target_margin (0 if met)
    influence_factor: float  # how far 1% fake respondents can move an estimate
    # Notes ({"code": …, values}, ``surveys.analysis.wording``): worded in the
    # reader's language on a page, in English in exports and the API.
    warnings: list[dict[str, Any]]
    # Scales and numbers: binned distribution and median (None otherwise, or
    # when the mechanism has no channel over the levels to fit).
    distribution: Distribution | None = None
    # The ldp method of ``consistent``: "norm-sub" (projection onto the simplex)
    # or "mle" (maximum likelihood through the channel); None without it.
    consistent_method: str | None = None
    # The researcher's forced-response design named in ``mechanism_label``
    # (ForcedDesign.as_json), so a page can name it in the reader's language;
    # None without one.  Not exported (``mechanism_label`` carries it).
    design: dict[str, str] | None = None


@dataclass(frozen=True)
class PlainSummary:
    """What respondents answered to one unprotected question (sent as given).

    Choice kinds: ``counts[i]`` respondents chose ``labels[i]`` (for a
    multi-select question, ticked it, so the counts may add up to more than
    ``n``).  Numbers: ``labels`` and ``counts`` are empty and the mean,
    median, lowest and highest answers are given.  ``n`` counts the
    respondents who answered (skips are in the results' ``skipped``).
    """

    question_id: int
    text: str
    kind: str
    n: int
    labels: list[str]
    counts: list[int]
    mean: float | None = None
    median: float | None = None
    lowest: float | None = None
    highest: float | None = None

    def shares(self) -> list[float]:
        """Each option's count over the respondents who answered (0 if none)."""
        return [count / self.n if self.n else 0.0 for count in self.counts]


@dataclass(frozen=True)
class ItemCounts:
    """How the submissions these results cover met one question (item
    non-response, ``surveys.collection.missing``): each counted submission is
    in exactly one of ``answered`` (a report or an answer), ``not_shown``
    (hidden by display logic: nothing was stored), ``left_blank`` or
    ``declined`` ("Prefer not to answer"), or ``unknown`` (one of the last
    two, stored before the device told them apart).  ``not_shown`` is what
    remains of the covered submissions once the others are counted (a hidden
    question stores nothing), so it also counts submissions made before the
    question existed."""

    question_id: int
    answered: int
    not_shown: int
    left_blank: int
    declined: int
    unknown: int = 0


@dataclass(frozen=True)
class SurveyResults:
    survey_id: int
    title: str
    total_epsilon: float  # sequential composition of the delivered ε
    questions: list[QuestionResult]  # private questions only, in position order
    not_protected: list[tuple[int, str]]  # (question_id, text) of plain questions
    refreshed_at: datetime | None  # when the tallies last advanced
    pending_reports: int  # reports stored but not yet in these results
    # From the snapshot these results were read from (None: computed just now).
    computed_at: datetime | None = None
    responses: int | None = None  # submissions whose reports are included
    pending_responses: int | None = None  # newer submissions being added
    version: int | None = None  # the snapshot's version
    # Item non-response: (question_id, skips) for every optional question, the
    # skips of the submissions these results cover ("Prefer not to answer").
    skipped: list[tuple[int, int]] = field(default_factory=list)
    # Unprotected questions' answers, of the same submissions as the estimates.
    plain: list[PlainSummary] = field(default_factory=list)
    # Every question's answered / not shown / left blank / declined counts.
    item_counts: list[ItemCounts] = field(default_factory=list)

    def skips(self) -> dict[int, int]:
        """Skips per optional question id (absent: the question is required)."""
        return dict(self.skipped)

    def items(self) -> dict[int, ItemCounts]:
        """``item_counts`` by question id (empty for a format-6 document)."""
        return {item.question_id: item for item in self.item_counts}


# Bumped whenever the stored form of the results changes: a snapshot stored by
# an earlier release is then recomputed instead of misread.
# 2: item non-response ("skipped"); 3: unprotected answers; 4: binned
# distributions and medians of scales and numbers; 5: the consistent method;
# 6: warnings stored as notes (codes with values), and the forced-response
# design; 7: item counts (answered, not shown, left blank, declined); 8: the
# binned distributions' analytic intervals (no bootstrap resamples).  A
# format-6 or 7 document is still read (``READABLE_FORMATS``: its English
# warnings become notes, ``wording.from_sentence``) so a page shows it until a
# worker has stored its replacement, but it counts as due for recomputation.
DOCUMENT_FORMAT = 8
READABLE_FORMATS = (5, 6, 7, 8)
READER_FIELDS = (
    "pending_reports",
    "computed_at",
    "responses",
    "pending_responses",
    "version",
)


# --- the stored form: a JSON document ------------------------------------------
# PostgreSQL's jsonb has no NaN or infinity, which a margin can be (an infinite
# worst-case variance): such floats are stored as {"float": "inf"}.
def _encode(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"float"}:
            return float(value["float"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _interval(value: dict[str, float] | None) -> Interval | None:
    return None if value is None else Interval(value["low"], value["high"])


def _distribution(value: dict[str, Any] | None) -> Distribution | None:
    if value is None:
        return None
    # Formats before 8 stored the bootstrap's resample count.
    value = {k: v for k, v in value.items() if k != "resamples"}
    return Distribution(
        **{
            **value,
            "intervals": [Interval(i["low"], i["high"]) for i in value["intervals"]],
            "median_interval": Interval(**value["median_interval"]),
        }
    )


def results_to_document(results: SurveyResults) -> dict[str, Any]:
    """The results as a JSON document (what a snapshot stores)."""
    document = dataclasses.asdict(results)
    # What the reader adds: freshness, and what arrived after the computation.
    for name in READER_FIELDS:
        document.pop(name)
    encoded: dict[str, Any] = _encode(document)
    encoded["format"] = DOCUMENT_FORMAT
    return encoded


def document_readable(document: dict[str, Any]) -> bool:
    """Whether ``document`` is in this release's format (else it is recomputed)."""
    return isinstance(document, dict) and document.get("format") == DOCUMENT_FORMAT


def document_shown(document: dict[str, Any]) -> bool:
    """Whether :func:`results_from_document` reads ``document``: this release's
    format or the one before it (shown while its replacement is computed)."""
    return isinstance(document, dict) and document.get("format") in READABLE_FORMATS


def results_from_document(document: dict[str, Any], **fields: Any) -> SurveyResults:
    """Rebuild SurveyResults from :func:`results_to_document`, plus ``fields``."""
    data = _decode({k: v for k, v in document.items() if k != "format"})
    questions = []
    for q in data["questions"]:
        q["intervals"] = [Interval(i["low"], i["high"]) for i in q["intervals"]]
        q["mean_interval"] = _interval(q["mean_interval"])
        q["distribution"] = _distribution(q.get("distribution"))
        # Format 5 stored English sentences: read as the notes they stand for.
        q["warnings"] = [
            wording.from_sentence(w) if isinstance(w, str) else w for w in q["warnings"]
        ]
        questions.append(QuestionResult(**q))
    refreshed = data["refreshed_at"]
    return SurveyResults(
        survey_id=data["survey_id"],
        title=data["title"],
        total_epsilon=data["total_epsilon"],
        questions=questions,
        not_protected=[(pk, text) for pk, text in data["not_protected"]],
        refreshed_at=datetime.fromisoformat(refreshed) if refreshed else None,
        skipped=[(pk, count) for pk, count in data.get("skipped", [])],
        plain=[PlainSummary(**p) for p in data.get("plain", [])],
        item_counts=[ItemCounts(**c) for c in data.get("item_counts", [])],
        **fields,
    )
