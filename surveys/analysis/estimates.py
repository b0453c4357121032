"""Turn one question's tally into a QuestionResult, through ldp only.

Post-processing of randomized reports: none of this costs privacy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

import ldp
from ldp.mechanisms import FiniteChannelMechanism
from surveys.analysis.results import Interval, QuestionResult
from surveys.authoring.mechanisms import mechanism_label
from surveys.authoring.models import Question
from surveys.collection.questions import answer_choices

LEVEL = 0.95
FAKE_SHARE = 0.01  # the influence factor: what 1% fake respondents can do
FAR_OUTSIDE = 0.1
MAX_CONDITION = 1e6  # raw shares beyond [-0.1, 1.1] get a warning
Z = float(stats.norm.ppf(1 - (1 - LEVEL) / 2))


def _floats(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=float).reshape(-1)]


def _intervals(low: Any, high: Any) -> list[Interval]:
    return [
        Interval(lo, hi) for lo, hi in zip(_floats(low), _floats(high), strict=True)
    ]


def _is_channel(mechanism: ldp.Mechanism) -> bool:
    return isinstance(mechanism, FiniteChannelMechanism)


def labels_for(question: Question, mechanism: ldp.Mechanism) -> list[str]:
    """One label per estimated share, indexed like ldp's answer values."""
    if _is_channel(mechanism) and question.kind == Question.Kind.NUMERIC:
        return [f"{v:g}" for v in mechanism.input_values()]
    by_value = dict(answer_choices(question))
    return [by_value.get(v, str(v)) for v in range(mechanism.k)]


def _planning(
    mechanism: ldp.Mechanism, n: int, target: float
) -> tuple[float, int, float]:
    """(margin at n, more responses needed for the target, target in units)."""
    if _is_channel(mechanism):
        values = mechanism.input_values()
        spread = float(values.max() - values.min())
        variance = ldp.mean_worst_case_variance(mechanism)
        target = target * spread
    else:
        variance = ldp.worst_case_variance(mechanism)
    margin = Z * math.sqrt(variance / max(n, 1))
    if not math.isfinite(variance):
        return margin, 0, target
    needed = math.ceil(Z**2 * variance / target**2)
    return margin, max(needed - n, 0), target


def influence_factor(mechanism: ldp.Mechanism) -> float:
    """How far 1% fake respondents can move the headline estimate (primer §10).

    Frequency oracles: fakes all supporting one answer v move f̂_v by up to
    0.01·(1 − q_v)/(p_v − q_v) (times ℓ for padding-and-sampling).  Finite
    channels: 0.01 times the range of one report's contribution — of the
    score (the mean, value units) or of a row of (Qᵀ)⁺ (ordinal shares).
    """
    if _is_channel(mechanism):
        if mechanism.primary == "mean":
            scores = mechanism.scores()
            return FAKE_SHARE * float(scores.max() - scores.min())
        inverse = np.linalg.pinv(mechanism.channel_matrix().T)
        return FAKE_SHARE * float(np.max(inverse.max(axis=1) - inverse.min(axis=1)))
    p, q = np.asarray(mechanism.p_star), np.asarray(mechanism.q_star)
    scale = float(getattr(mechanism, "scale", 1))
    return FAKE_SHARE * scale * float(np.max((1 - q) / (p - q)))


def _frequency_fields(mechanism: ldp.Mechanism, stat: ldp.SupportCounts) -> dict:
    estimate = mechanism.estimate(stat)
    interval = estimate.confidence_interval(LEVEL, method="exact")
    multi = isinstance(estimate, ldp.MultiSelectEstimate)
    return {
        "estimate": _floats(estimate.estimate),
        "standard_error": _floats(estimate.standard_error),
        "intervals": _intervals(interval.low, interval.high),
        "interval_method": "exact",
        # Multi-select shares need not sum to 1: no simplex projection.
        "consistent": None if multi else _floats(estimate.consistent("norm-sub")),
    }


def _channel_fields(mechanism: Any, stat: ldp.SupportCounts) -> dict:
    fields: dict[str, Any] = {"interval_method": "t"}
    # Shares only where the channel can be inverted reliably (not Duchi's two
    # outputs, not a very smooth Gaussian kernel).
    if mechanism.outputs >= mechanism.k and (
        np.linalg.cond(mechanism.channel_matrix()) < MAX_CONDITION
    ):
        distribution = mechanism.estimate_distribution(stat)
        interval = distribution.confidence_interval(LEVEL)
        fields.update(
            estimate=_floats(distribution.estimate),
            standard_error=_floats(distribution.standard_error),
            intervals=_intervals(interval.low, interval.high),
            consistent=_floats(distribution.consistent("norm-sub")),
            interval_method="wald",
        )
    mean = (
        mechanism.estimate_distribution(stat).mean()
        if mechanism.primary == "distribution"
        else mechanism.estimate_mean(stat)
    )
    mean_interval = mean.confidence_interval(LEVEL, method="t")
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
) -> QuestionResult:
    """The result of one question from its current revision's aggregate."""
    n = stat.n if stat is not None else 0
    warnings: list[str] = []
    fields: dict[str, Any] = {
        "estimate": [],
        "standard_error": [],
        "intervals": [],
        "interval_method": "exact",
        "consistent": None,
        "mean": None,
        "mean_standard_error": None,
        "mean_interval": None,
    }
    minimum = 2 if _is_channel(mechanism) else 1
    if stat is None or n < minimum:
        warnings.append(
            "No reports yet." if n == 0 else f"Only {n} report: too few to estimate."
        )
        if _is_channel(mechanism):
            fields["interval_method"] = "t"
    elif _is_channel(mechanism):
        fields.update(_channel_fields(mechanism, stat))
    else:
        fields.update(_frequency_fields(mechanism, stat))
    if _is_channel(mechanism) and mechanism.score_bias > 1e-6:
        warnings.append(
            "This mechanism's channel is numerically singular: its mean may be "
            f"biased by up to {mechanism.score_bias:.3g}."
        )
    raw = fields["estimate"]
    if raw and (min(raw) < -FAR_OUTSIDE or max(raw) > 1 + FAR_OUTSIDE):
        warnings.append(
            f"Some raw estimates lie far outside 0–100% ({min(raw):.0%} to "
            f"{max(raw):.0%}): the noise still dominates at n = {n}; read the "
            "consistent estimate and wait for more responses."
        )
    if older_reports:
        warnings.append(
            f"{older_reports} report{'s' if older_reports != 1 else ''} made under "
            "earlier versions of this question "
            f"{'are' if older_reports != 1 else 'is'} not included."
        )
    margin, needed, target = _planning(mechanism, n, target_margin)
    return QuestionResult(
        question_id=question.pk,
        position=question.position,
        text=question.text,
        kind=question.kind,
        spec_revision=question.spec_revision,
        mechanism=mechanism.name,
        mechanism_label=mechanism_label(mechanism.name),
        epsilon=float(mechanism.epsilon),
        n=n,
        labels=labels_for(question, mechanism),
        margin_of_error=margin,
        target_margin=target,
        responses_needed=needed,
        influence_factor=influence_factor(mechanism),
        warnings=warnings,
        **fields,
    )
