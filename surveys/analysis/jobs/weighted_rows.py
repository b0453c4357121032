"""One protected question's unweighted and weighted rows in the weighted
table, from its reports (``weights.question_rows``) or from a snapshot's
pattern tallies (``weights_grouped``): the same estimators, the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_noop

import ldp
from ldp.mechanisms.oracle import SupportMechanism
from surveys.analysis import wording
from surveys.analysis.results.estimates import labels_for
from surveys.authoring import kinds
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.models import Question

LEVEL = 0.95


class WeightingRefused(wording.Refusal):
    """The weights cannot be computed as asked; the message says why."""


def _interval(estimate: Any) -> tuple[Any, Any]:
    interval = estimate.confidence_interval(LEVEL)
    return interval.low, interval.high


def _mean_label(question: Question, mechanism: ldp.Mechanism) -> wording.Note:
    """The mean's label, saying how an ordinal scale is numbered (a note: the
    page words it for its reader, the CSV file in English)."""
    if not kinds.facts(question.kind).ordered:
        return wording.sentence(gettext_noop("Mean"))
    labels = labels_for(question, mechanism)
    return wording.sentence(
        gettext_noop("Mean on the scale 0 (%(lowest)s) to %(top)s (%(highest)s)"),
        lowest=labels[0],
        top=len(labels) - 1,
        highest=labels[-1],
    )


@dataclass(frozen=True)
class WeightedInputs:
    """What one question's weighted rows are computed from: the reports
    (``weights.question_rows``) or a snapshot's pattern tallies
    (``weights_grouped``)."""

    n: int  # weighted respondents' reports
    weighted: bool  # the weights do not all vanish
    plain: Callable[[], ldp.SupportCounts]  # the reports' aggregate
    shares: Callable[[], Any]  # the weighted shares (a WeightedEstimate)
    mean: Callable[[], Any]  # the weighted mean (a MeanEstimate)
    mean_design_effect: Callable[[], float]


def question_entry(question: Question, inputs: WeightedInputs) -> dict[str, Any]:
    """One protected question's unweighted and weighted rows from ``inputs``."""
    mechanism = question.compiled_mechanism()
    if mechanism is None:
        raise WeightingRefused(
            gettext_noop("“%(text)s” is no longer protected."), text=question.text
        )
    entry: dict[str, Any] = {
        "text": question.text,
        "kind": question.kind,
        "mechanism_label": mechanism_label(mechanism.name),
        "epsilon": float(mechanism.epsilon),
        "n": inputs.n,
        "rows": [],
        "note": None,
    }
    if inputs.n < 2:
        entry["note"] = wording.sentence(
            gettext_noop("Fewer than 2 weighted respondents answered it.")
        )
        return entry
    if not inputs.weighted:
        entry["note"] = wording.sentence(
            gettext_noop("Every respondent who answered it has weight 0.")
        )
        return entry
    if isinstance(mechanism, SupportMechanism):
        entry["measure"] = "share"
        # The unweighted column is the results page's estimate with the
        # results page's interval: one method per estimand on every page.
        plain = mechanism.estimate(inputs.plain())
        weighted = inputs.shares()
        low_u, high_u = _interval(plain)
        low_w, high_w = _interval(weighted)
        for i, label in enumerate(labels_for(question, mechanism)):
            entry["rows"].append(
                {
                    "label": label,
                    "unweighted": float(plain.estimate[i]),
                    "unweighted_low": float(low_u[i]),
                    "unweighted_high": float(high_u[i]),
                    "weighted": float(weighted.estimate[i]),
                    "weighted_low": float(low_w[i]),
                    "weighted_high": float(high_w[i]),
                }
            )
        entry["design_effect"] = weighted.design_effect
    elif hasattr(mechanism, "scores"):
        entry["measure"] = "mean"
        plain_mean = mechanism.estimate(inputs.plain()).mean()
        weighted_mean = inputs.mean()
        low_u, high_u = _interval(plain_mean)
        low_w, high_w = _interval(weighted_mean)
        label = _mean_label(question, mechanism)
        entry["rows"].append(
            {
                "label": wording.english(label),
                "label_note": label,
                "unweighted": float(plain_mean.estimate),
                "unweighted_low": float(low_u),
                "unweighted_high": float(high_u),
                "weighted": float(weighted_mean.estimate),
                "weighted_low": float(low_w),
                "weighted_high": float(high_w),
            }
        )
        entry["design_effect"] = inputs.mean_design_effect()
    else:
        entry["note"] = wording.sentence(
            gettext_noop("This mechanism has no weighted estimator.")
        )
    return entry
