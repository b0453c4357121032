"""The privacy view of a survey: per-question ε, totals and trade-off curves."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from django.utils.translation import gettext

import ldp
from ldp import accounting
from ldp.spec.ratio import likelihood_ratio
from surveys.authoring.designs import design_label_shown
from surveys.authoring.ldp_words import localized_number
from surveys.authoring.models import Question, Survey

ALPHAS = np.linspace(0.0, 1.0, 101)
# Exact trade-off curves look at every ordered pair of answers: k²·outputs work.
TRADEOFF_WORK_MAX = 2_000_000
DELTA = 1e-6
# The (ε, δ) pairs shown for the survey's Gaussian-DP guarantee, and the group
# sizes of the group-privacy table.
DELTA_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0)
GROUP_SIZES = (1, 2, 3, 4, 5, 10)
DELTA_CURVE_POINTS = 81


def _up_two_digits(value: Fraction) -> Decimal:
    """``value > 0`` rounded up to two significant digits."""
    digits = len(str(value.numerator // value.denominator)) - 2
    if value < 10:
        digits = -1
    scale = Fraction(10) ** digits
    shown = Decimal(math.ceil(value / scale)).scaleb(digits)
    return shown.to_integral_value() if shown == shown.to_integral_value() else shown


def _certainty(ratio: Fraction) -> Decimal:
    """``100 R/(1 + R)`` rounded up: a whole percent below 99, above that the
    remaining doubt rounded down to its first significant digit."""
    percent = 100 * ratio / (1 + ratio)
    if percent <= 99:
        return Decimal(math.ceil(percent))
    doubt = 100 - percent
    places = 1
    while doubt * 10**places < 1:
        places += 1
    kept = Fraction(math.floor(doubt * 10**places), 10**places)
    return Decimal(100).scaleb(0) - Decimal(kept.numerator) / Decimal(kept.denominator)


def odds_words(spec: dict[str, Any]) -> str:
    """What one report lets an observer learn, in the active language.

    ε-LDP bounds the posterior odds by the exact worst-case likelihood ratio
    ``R`` of the spec's weights times the prior odds, so an observer who was
    50/50 can be at most ``R/(1 + R)`` sure afterwards (docs/maths.md,
    section 8; the odds framing of Nanayakkara et al., USENIX Security 2023).
    Both figures are rounded against the respondent, as the device rounds
    them: ``R`` up to two significant digits, the certainty up.
    """
    ratio = likelihood_ratio(spec)
    return gettext(
        "Someone who sees one report and was 50/50 about the answer can be at "
        "most %(percent)s%% sure of it afterwards: one report multiplies their "
        "odds by at most %(factor)s."
    ) % {
        "percent": localized_number(_certainty(ratio)),
        "factor": localized_number(_up_two_digits(ratio), grouping=True),
    }


@dataclass(frozen=True)
class QuestionPrivacy:
    question: Question
    mechanism: str
    mechanism_label: str
    epsilon: float
    epsilon_display: str
    wording: str
    alphas: list[float]
    betas: list[float] | None  # exact curve; None when not computed
    reference: list[float]  # f_{ε,0}
    beta_at_5: float  # the curve (or the ε-DP bound) at α = 5%
    exact_curve: bool
    # The smallest μ for which the question is μ-GDP (exact, from its channel);
    # None when the channel is too big to examine, inf when no μ works.
    mu: float | None = None


@dataclass(frozen=True)
class SurveyPrivacyView:
    questions: list[QuestionPrivacy]
    sequential_epsilon: float
    composed_epsilon: float | None
    composed_delta: float
    composed_method: str
    budget: float
    # μ-GDP of the whole survey, √(Σ μ_j²), when every question has a finite μ.
    mu: float | None = None
    # δ(ε) of that μ at DELTA_EPSILONS: the survey is (ε, δ(ε))-DP for each.
    delta_profile: list[tuple[float, float]] = dataclasses.field(default_factory=list)
    # The same δ(ε) on a fine grid of ε, drawn as a chart (empty without μ).
    delta_curve: list[tuple[float, float]] = dataclasses.field(default_factory=list)
    # (k, k·ε, k·μ or None): k related respondents sharing one true answer.
    groups: list[tuple[int, float, float | None]] = dataclasses.field(
        default_factory=list
    )


def _channel(mechanism: ldp.Mechanism) -> np.ndarray | None:
    try:
        return mechanism.channel_matrix()
    except NotImplementedError:
        return None


def question_privacy(question: Question) -> QuestionPrivacy | None:
    mechanism = question.compiled_mechanism()
    if mechanism is None:
        return None
    channel = _channel(mechanism)
    epsilon = mechanism.epsilon
    reference = accounting.epsilon_dp_tradeoff(epsilon, ALPHAS)
    betas = None
    mu = None
    if channel is not None:
        k, m = channel.shape
        if k * k * m <= TRADEOFF_WORK_MAX:
            betas = accounting.tradeoff_curve(channel, ALPHAS)
            mu = accounting.gaussian_dp_mu(channel)
    curve = betas if betas is not None else reference
    name = question.spec.get("mechanism", "")
    return QuestionPrivacy(
        question=question,
        mechanism=name,
        # With the researcher's forced-response design (split) when it has one.
        mechanism_label=design_label_shown(name, question.design),
        epsilon=epsilon,
        epsilon_display=mechanism.epsilon_display,
        wording=odds_words(question.spec),
        alphas=[float(a) for a in ALPHAS],
        betas=None if betas is None else [float(b) for b in betas],
        reference=[float(b) for b in reference],
        beta_at_5=float(np.interp(0.05, ALPHAS, curve)),
        exact_curve=betas is not None,
        mu=mu,
    )


def survey_privacy_view(
    survey: Survey, group_size: int | None = None
) -> SurveyPrivacyView:
    """The survey's privacy figures; ``group_size`` adds a row for that ``k`` to
    the group-privacy table (``k ε`` and ``k μ``; Dwork and Roth 2014,
    Theorem 2.2)."""
    views = [v for v in map(question_privacy, survey.questions.all()) if v]
    items = []
    for view in views:
        mechanism = view.question.compiled_mechanism()
        channel = _channel(mechanism)
        items.append(channel if channel is not None else mechanism.epsilon)
    sequential = accounting.sequential_composition([v.epsilon for v in views])
    composed, method = None, "sequential"
    if items:
        try:
            result = accounting.survey_privacy(items, delta=DELTA)
        except (ValueError, MemoryError):  # the tighter bound is optional
            result = None
        if result is not None and math.isfinite(result.epsilon):
            composed, method = result.epsilon, result.method
    mus = [v.mu for v in views]
    survey_mu = None
    if views and all(mu is not None and math.isfinite(mu) for mu in mus):
        survey_mu = accounting.gdp_composition([float(mu) for mu in mus if mu])
    profile, curve = [], []
    if survey_mu is not None:
        deltas = accounting.gdp_delta(survey_mu, DELTA_EPSILONS)
        profile = [(e, float(d)) for e, d in zip(DELTA_EPSILONS, deltas, strict=True)]
        # Up to the pure ε (where δ = 0 holds exactly), or 8, whichever is larger.
        grid = np.linspace(0.0, max(8.0, sequential), DELTA_CURVE_POINTS)
        curve = [
            (float(e), float(d))
            for e, d in zip(grid, accounting.gdp_delta(survey_mu, grid), strict=True)
        ]
    groups = [
        (
            k,
            accounting.group_epsilon(sequential, k),
            None if survey_mu is None else accounting.group_mu(survey_mu, k),
        )
        for k in sorted(set(GROUP_SIZES) | ({group_size} if group_size else set()))
    ]
    return SurveyPrivacyView(
        questions=views,
        sequential_epsilon=sequential,
        composed_epsilon=composed,
        composed_delta=DELTA,
        composed_method=method,
        budget=survey.epsilon_budget,
        mu=survey_mu,
        delta_profile=profile if views else [],
        delta_curve=curve if views else [],
        groups=groups if views else [],
    )
