"""Turn SurveyResults into what the dashboard shows: rows, charts, freshness.

Every number displayed comes straight from the result objects; this module
only formats them (and draws the SVG through ``charts``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext, gettext_noop, ngettext

from surveys.analysis import wording
from surveys.analysis.pages import charts
from surveys.analysis.pages.consistent import method_label
from surveys.analysis.pages.numbers import (
    grouped,
    localized,
    number,
    percent,
    points,
    share_interval,
)
from surveys.analysis.results.objects import (
    Distribution,
    ItemCounts,
    QuestionResult,
    SurveyResults,
)
from surveys.authoring import kinds
from surveys.authoring.catalogue import (
    identifies_only_the_mean,
    mean_only_reason,
    mechanism_label,
)
from surveys.authoring.designs import design_label_shown

TABLE_ROWS_MAX = 40  # numeric grids can have ~1,000 cells: exports carry them all


@dataclass(frozen=True)
class Row:
    label: str
    estimate: str
    low: str
    high: str
    consistent: str
    standard_error: str
    # "below" or "above" when the unbiased estimate lies outside its interval
    # (the interval is cut at 0% or 100%, the estimate is not), else "".
    outside: str = ""


def _outside(estimate: float, interval) -> str:
    """Where an unbiased share lies outside its (0–100% cut) interval, if it does.

    The unbiased estimator (λ̂ − q)/(p − q) is not confined to [0, 1]: with a
    small true share the randomization noise can push it below 0.  Its exact
    or Wilson interval is mapped the same way and then cut at 0 and 1, since no
    share lies outside them; before the cut the interval contains the estimate
    (the mapping is increasing and a binomial interval contains λ̂), so only the
    cut can leave the estimate outside, and the page says so (docs/maths.md,
    section 2).
    """
    if estimate < interval.low:
        return "below"
    if estimate > interval.high:
        return "above"
    return ""


@dataclass(frozen=True)
class BinRow:
    label: str
    share: str
    low: str
    high: str


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
    influence_on_mean: bool  # what 1% fakes move: the mean (else a share)
    # Why some estimates lie outside their intervals ("" when none does).
    outside_note: str
    scale_note: str  # how an ordinal mean is numbered
    # Item non-response of an optional question ("" when required).
    skipped: str = ""
    # Answered / not shown / left blank / declined (None: an older snapshot).
    items: ItemCounts | None = None
    # Scales and numbers: the median and the binned distribution, shown
    # instead of the per-level table (which stays in the exports).
    median: str = ""
    median_low: str = ""
    median_high: str = ""
    bin_rows: list[BinRow] = field(default_factory=list)
    bin_chart: str = ""
    bin_method: str = ""
    # Numbers: the researcher may choose other bins (the bins page).
    bins_editable: bool = False
    # The consistent column's method in words ("" when there is no column).
    consistent_label: str = ""
    # Why there is no distribution and what to choose instead, for a
    # mechanism whose reports identify only the mean ("" otherwise).
    mean_only_reason: str = ""
    bins_alternative: str = ""
    # The mechanism's name, its interval's method and the warnings, in the
    # reader's language.
    mechanism_label: str = ""
    interval_method: str = ""
    warnings: list[str] = field(default_factory=list)


def labels_shown(kind: str, labels: list[str]) -> list[str]:
    """Answer labels as the reader reads them: a yes/no question's "Yes" and
    "No" are the site's own words (stored in English in snapshots and job
    results, as the exports carry them), worded in the reader's language;
    every other label is the researcher's own text, shown as stored."""
    if kind != "yes_no":
        return list(labels)
    own = {"Yes": gettext("Yes"), "No": gettext("No")}
    return [own.get(label, label) for label in labels]


# How the estimators name their methods (``ldp``: intervals of shares and
# means, the binned distribution), as snapshots and exports carry them, and
# the words a page shows for each.
METHOD_WORDS = {
    "exact": gettext_noop("exact"),
    "wilson": gettext_noop("Wilson"),
    "wald": gettext_noop("Wald"),
    "t": gettext_noop("Student's t"),
    "normal": gettext_noop("normal"),
    "constrained maximum likelihood, Wald and Woodruff intervals": gettext_noop(
        "constrained maximum likelihood, Wald and Woodruff intervals"
    ),
}


def method_shown(name: str) -> str:
    """An estimator's method in the reader's language (a name this release does
    not know is shown as stored)."""
    words = METHOD_WORDS.get(name)
    return gettext(words) if words else name


def shown_labels(result: QuestionResult) -> list[str]:
    """A result's answer labels as the reader reads them (:func:`labels_shown`)."""
    return labels_shown(result.kind, list(result.labels))


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
            outside=_outside(estimate, interval),
        )
        for label, estimate, interval, fixed, se in zip(
            shown_labels(result),
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
            shown_labels(result),
            result.estimate,
            result.intervals,
            consistent,
            strict=True,
        )
    ]
    return _share_chart(
        result,
        bars,
        gettext("Estimated shares for “%(text)s”") % {"text": result.text},
        ngettext(
            "Bars: unbiased estimates from %(n)s randomized report; "
            "whiskers: 95%% intervals; dots: consistent estimates.",
            "Bars: unbiased estimates from %(n)s randomized reports; "
            "whiskers: 95%% intervals; dots: consistent estimates.",
            result.n,
        )
        % {"n": grouped(result.n)},
    )


def _share_chart(
    result: QuestionResult, bars: list[charts.Bar], title: str, legend: str
) -> str:
    """An interval chart of shares whose description lists every bar's figures."""
    desc = "; ".join(
        gettext("%(label)s: %(estimate)s (95%% interval %(low)s to %(high)s)")
        % {
            "label": b.label,
            "estimate": percent(b.estimate),
            "low": percent(b.low),
            "high": percent(b.high),
        }
        for b in bars
    )
    return charts.interval_chart(
        chart_id=f"chart-q{result.question_id}",
        title=title,
        desc=gettext("%(legend)s %(figures)s.") % {"legend": legend, "figures": desc},
        bars=bars,
    )


def _outside_note(rows: list[Row], has_consistent: bool) -> str:
    sides = {row.outside for row in rows} - {""}
    if not sides:
        return ""
    if sides == {"below", "above"}:
        bound = gettext("below 0% or above 100%")
    elif "below" in sides:
        bound = gettext("below 0%")
    else:
        bound = gettext("above 100%")
    remedy = (
        gettext("the consistent column gives an estimate within the range.")
        if has_consistent
        # One option's count is binomial with an increasing channel: the
        # likelihood is unimodal, so its maximum within [0, 1] is the bound.
        else gettext("the most likely share within the range is the nearest bound.")
    )
    return gettext(
        "* An estimate marked so is %(bound)s, outside its interval. The noise "
        "that protects respondents can push an unbiased estimate past the "
        "possible range when a share is close to it; no share can lie there, so "
        "the interval stops at 0%% and 100%%. Read the share as lying in its "
        "interval; %(remedy)s The estimate is kept as computed because averaging "
        "such estimates (across surveys or groups) stays unbiased only if they "
        "are not cut."
    ) % {"bound": bound, "remedy": remedy}


def _bin_rows(distribution: Distribution) -> list[BinRow]:
    """Bin shares with their Wald intervals, cut to 0–100% and rounded
    outwards, never a point (``numbers.share_interval``)."""
    return [
        BinRow(label, percent(share), *share_interval(interval.low, interval.high))
        for label, share, interval in zip(
            distribution.labels,
            distribution.shares,
            distribution.intervals,
            strict=True,
        )
    ]


def _bin_chart(result: QuestionResult, distribution: Distribution) -> str:
    bars = [
        charts.Bar(label, share, interval.low, interval.high)
        for label, share, interval in zip(
            distribution.labels,
            distribution.shares,
            distribution.intervals,
            strict=True,
        )
    ]
    return _share_chart(
        result,
        bars,
        gettext("Distribution of answers to “%(text)s”") % {"text": result.text},
        ngettext(
            "Bars: %(method)s from %(n)s randomized report; whiskers: 95%% intervals.",
            "Bars: %(method)s from %(n)s randomized reports; whiskers: 95%% intervals.",
            result.n,
        )
        % {"method": method_shown(distribution.method), "n": grouped(result.n)},
    )


def _binned(result: QuestionResult) -> dict[str, Any]:
    """The card's median and bins fields, and no per-level table or chart."""
    d = result.distribution
    if d is None or not result.n:
        return {}
    return {
        # A median is one of the answers' values: shown as the answer is.
        "median": localized(f"{d.median:g}"),
        "median_low": localized(f"{d.median_interval.low:g}"),
        "median_high": localized(f"{d.median_interval.high:g}"),
        "bin_rows": _bin_rows(d),
        "bin_chart": _bin_chart(result, d),
        "bin_method": method_shown(d.method),
        "rows": [],
        "rows_hidden": 0,
        "chart": "",
        "outside_note": "",
        "consistent_label": "",
    }


def mechanism_shown(result: QuestionResult) -> str:
    """The mechanism's name (with the researcher's forced-response design) in
    the reader's language.  A snapshot stored before designs were kept names a
    design only in English: that name is shown as stored."""
    if result.design is None and result.mechanism_label != mechanism_label(
        result.mechanism
    ):
        return result.mechanism_label
    return design_label_shown(result.mechanism, result.design)


def question_card(result: QuestionResult) -> QuestionCard:
    kind = kinds.facts(result.kind)
    in_units = kind.in_units
    fmt = number if in_units else points
    mean_interval = result.mean_interval
    rows = _rows(result)[:TABLE_ROWS_MAX]
    fields: dict[str, Any] = {
        "rows": rows,
        "outside_note": _outside_note(rows, result.consistent is not None),
        "rows_hidden": max(len(result.labels) - TABLE_ROWS_MAX, 0),
        "chart": _chart(result),
        "consistent_label": method_label(result.consistent_method) if rows else "",
    }
    fields.update(_binned(result))
    fields.update(
        mechanism_label=mechanism_shown(result),
        interval_method=method_shown(result.interval_method),
        warnings=[wording.shown(w) for w in result.warnings],
    )
    if identifies_only_the_mean(result.mechanism):
        reason, alternative = mean_only_reason(result.mechanism)
        fields.update(mean_only_reason=reason, bins_alternative=alternative)
    return QuestionCard(
        result=result,
        shares_in_units=in_units,
        # No reports: no margin to speak of (the worst case at n = 1 would read
        # like ±196%); the card says so in words instead.
        margin=fmt(result.margin_of_error) if result.n else "—",
        target=fmt(result.target_margin),
        mean=number(result.mean),
        mean_low=number(mean_interval.low if mean_interval else None),
        mean_high=number(mean_interval.high if mean_interval else None),
        mean_se=number(result.mean_standard_error),
        influence=(
            number(result.influence_factor)
            if kind.grid  # the mean, in answer units
            else points(result.influence_factor)
        ),
        influence_on_mean=kind.grid,
        bins_editable=kind.grid,
        scale_note=(
            gettext("on the scale numbered 0 (%(first)s) to %(top)s (%(last)s)")
            % {
                "first": result.labels[0],
                "top": len(result.labels) - 1,
                "last": result.labels[-1],
            }
            if kind.ordered and result.labels
            else ""
        ),
        **fields,
    )


def cards(results: SurveyResults) -> list[QuestionCard]:
    skips, items = results.skips(), results.items()
    return [
        dataclasses.replace(
            question_card(r),
            skipped=(
                skipped_words(skips[r.question_id], r.n)
                if r.question_id in skips
                else ""
            ),
            items=items.get(r.question_id),
        )
        for r in results.questions
    ]


def skipped_words(skipped: int, answered: int) -> str:
    """Item non-response: the skips and their share of the question's responses."""
    total = skipped + answered
    if not total:
        return "0"
    return gettext("%(skipped)s (%(share)s of %(total)s)") % {
        "skipped": grouped(skipped),
        "share": percent(skipped / total, 1),
        "total": grouped(total),
    }


@dataclass(frozen=True)
class PlainCard:
    """An unprotected question's answers as the results page shows them."""

    question_id: int
    text: str
    n: int
    skipped: str  # skips in words, "" for a required question
    rows: list[tuple[str, int, str]]  # (option, respondents, share of n)
    multiple: bool  # a multi-select question: shares may add up to over 100%
    stats: list[tuple[str, str]]  # numbers: (mean | median | lowest | highest, value)
    items: ItemCounts | None = None  # as ``QuestionCard.items``


def plain_rows(results: SurveyResults) -> list[PlainCard]:
    """Unprotected questions' answers: counts and shares, or a number's summary."""
    skips, items = results.skips(), results.items()
    summaries = {s.question_id: s for s in results.plain}
    cards = []
    for pk, text in results.not_protected:
        summary = summaries.get(pk)
        n = summary.n if summary else 0
        rows, stats = [], []
        if summary is not None and summary.labels:
            rows = [
                (label, count, percent(share, 1) if n else "—")
                for label, count, share in zip(
                    summary.labels, summary.counts, summary.shares(), strict=True
                )
            ]
        elif summary is not None and n:
            stats = [
                (gettext("Mean"), number(summary.mean)),
                (gettext("Median"), number(summary.median)),
                (gettext("Lowest"), number(summary.lowest)),
                (gettext("Highest"), number(summary.highest)),
            ]
        cards.append(
            PlainCard(
                question_id=pk,
                text=text,
                n=n,
                skipped=skipped_words(skips[pk], n) if pk in skips else "",
                rows=rows,
                multiple=summary is not None and kinds.facts(summary.kind).several,
                stats=stats,
                items=items.get(pk),
            )
        )
    return cards
