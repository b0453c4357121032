"""Turn one question's tally into a QuestionResult, through ldp only.

Post-processing of randomized reports: none of this costs privacy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import ldp
from surveys.analysis import wording
from surveys.analysis.results import bins
from surveys.analysis.results.objects import Interval, QuestionResult
from surveys.authoring import kinds
from surveys.authoring.designs import design_label
from surveys.authoring.models import Question
from surveys.collection.questions import answer_choices

LEVEL = 0.95
FAKE_SHARE = 0.01  # the influence factor: what 1% fake respondents can do
FAR_OUTSIDE = 0.1
Z = ldp.critical_value(LEVEL)


def _floats(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=float).reshape(-1)]


def _intervals(low: Any, high: Any) -> list[Interval]:
    return [
        Interval(lo, hi) for lo, hi in zip(_floats(low), _floats(high), strict=True)
    ]


def labels_for(question: Question, mechanism: ldp.Mechanism) -> list[str]:
    """One label per estimated share, indexed like ldp's answer values."""
    values = mechanism.input_values()
    if values is not None and kinds.facts(question.kind).grid:
        return [f"{v:g}" for v in values]
    by_value = dict(answer_choices(question))
    return [by_value.get(v, str(v)) for v in range(mechanism.k)]


def _planning(
    mechanism: ldp.Mechanism, n: int, target: float
) -> tuple[float, int, float]:
    """(margin at n, more responses needed for the target, target in units).

    The target is a fraction of the headline's scale: of a share, or of the
    answer range for a mean.
    """
    variance = ldp.worst_case_variance(mechanism)
    target = target * mechanism.value_range
    margin = Z * math.sqrt(variance / max(n, 1))
    if not math.isfinite(variance):
        return margin, 0, target
    needed = math.ceil(Z**2 * variance / target**2)
    return margin, max(needed - n, 0), target


def influence_factor(mechanism: ldp.Mechanism) -> float:
    """How far 1% fake respondents can move the headline estimate.

    See ``Mechanism.manipulation_bound`` (docs/maths.md, section 10).
    """
    return mechanism.manipulation_bound(FAKE_SHARE)


def consistent_method_for(estimate: ldp.Estimate, wanted: str) -> str:
    """The consistent method used for ``estimate``: ``wanted`` where its family
    offers it, else the family's default (docs/maths.md, section 6.2)."""
    methods = estimate.consistent_methods
    return wanted if wanted in methods else methods[0]


def _estimate_fields(estimate: ldp.Estimate, consistent_method: str) -> dict[str, Any]:
    """Shares (where identifiable) and the mean (where answers have values)."""
    fields: dict[str, Any] = {}
    if estimate.identifiable:
        method = estimate.interval_methods[0]
        interval = estimate.confidence_interval(LEVEL, method)
        fields.update(
            estimate=_floats(estimate.estimate),
            standard_error=_floats(estimate.standard_error),
            intervals=_intervals(interval.low, interval.high),
            interval_method=method,
        )
        # Multi-select shares need not sum to 1: no consistent distribution.
        if estimate.sums_to_one:
            used = consistent_method_for(estimate, consistent_method)
            fields.update(
                consistent=_floats(estimate.consistent(used)),
                consistent_method=used,
            )
    mean = estimate.mean()
    if mean is not None:
        mean_interval = mean.confidence_interval(LEVEL)
        fields.update(
            mean=float(mean.estimate),
            mean_standard_error=float(mean.standard_error),
            mean_interval=Interval(float(mean_interval.low), float(mean_interval.high)),
        )
    return fields


def question_result(
    question: Question,
    mechanism: ldp.Mechanism,
    stat: ldp.SupportCounts | None,
    *,
    target_margin: float,
    older_reports: int = 0,
    cuts: list[float] | None = None,
    consistent_method: str = "norm-sub",
) -> QuestionResult:
    """The result of one question from its current revision's aggregate.

    Scales and numbers also get their binned distribution and median
    (:func:`surveys.analysis.results.bins.distribution`), numbers in the researcher's
    bins ``cuts`` when given.  ``consistent_method`` is the survey's choice of
    consistent estimate ("norm-sub" or "mle", :func:`consistent_method_for`).
    """
    n = stat.n if stat is not None else 0
    warnings: list[wording.Note] = []
    fields: dict[str, Any] = {
        "estimate": [],
        "standard_error": [],
        "intervals": [],
        "interval_method": mechanism.interval_method,
        "consistent": None,
        "consistent_method": None,
        "mean": None,
        "mean_standard_error": None,
        "mean_interval": None,
    }
    if stat is None or n < mechanism.minimum_reports:
        warnings.append(
            wording.note(wording.NO_REPORTS)
            if n == 0
            else wording.note(wording.TOO_FEW, n=n)
        )
    else:
        fields.update(_estimate_fields(mechanism.estimate(stat), consistent_method))
        if kinds.facts(question.kind).in_units:
            fields["distribution"] = bins.distribution(
                mechanism,
                stat,
                labels=labels_for(question, mechanism),
                numeric=kinds.facts(question.kind).grid,
                cuts=cuts,
            )
    if mechanism.bias_bound > 1e-6:
        warnings.append(
            wording.note(wording.SINGULAR_CHANNEL, bound=float(mechanism.bias_bound))
        )
    raw = fields["estimate"]
    # With a binned distribution the per-level shares are left to the exports.
    far = raw and (min(raw) < -FAR_OUTSIDE or max(raw) > 1 + FAR_OUTSIDE)
    if far and fields.get("distribution") is None:
        warnings.append(
            wording.note(wording.FAR_OUTSIDE, low=min(raw), high=max(raw), n=n)
        )
    if older_reports:
        warnings.append(wording.note(wording.OLDER_REPORTS, n=older_reports))
    margin, needed, target = _planning(mechanism, n, target_margin)
    return QuestionResult(
        question_id=question.pk,
        position=question.position,
        text=question.text,
        kind=question.kind,
        spec_revision=question.spec_revision,
        mechanism=mechanism.name,
        # Names the researcher's forced-response design (custom split or
        # unrelated question) with its split, when the question has one.
        mechanism_label=design_label(mechanism.name, question.design),
        epsilon=float(mechanism.epsilon),
        n=n,
        labels=labels_for(question, mechanism),
        margin_of_error=margin,
        target_margin=target,
        responses_needed=needed,
        influence_factor=influence_factor(mechanism),
        warnings=warnings,
        design=dict(question.design) if question.design else None,
        **fields,
    )
