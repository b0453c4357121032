"""What the builder shows about a compiled question: ε, plain words, margins.

Every figure comes from ldp: the delivered ε of the compiled integer weights,
ldp's planning functions for margins and sample sizes, and ldp's wording of ε
for respondents.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from scipy import stats

import ldp
from ldp.accounting import describe_epsilon, sequential_composition
from ldp.exact import display_epsilon
from surveys.authoring.catalogue import (
    MEAN,
    SHARE,
    describe_mechanism,
    estimate_of,
    mechanism_label,
)
from surveys.authoring.mechanisms import CATEGORICAL, PrivacyConfig, build

CONFIDENCE_LEVEL = 0.95
FIVE_POINTS = 0.05


def _round_up(value: float, digits: int = 3) -> str:
    """``value`` rounded up to ``digits`` significant digits."""
    if value <= 0 or not math.isfinite(value):
        return f"{value:g}"
    exponent = math.floor(math.log10(value)) - digits + 1
    scaled = math.ceil(value / 10**exponent - 1e-9) * 10**exponent
    return f"{scaled:.{max(-exponent, 0)}f}"


@dataclass(frozen=True)
class Preview:
    """What the builder shows next to a question's privacy settings."""

    is_private: bool
    n: int
    margin: float | None
    mechanism: str = ""
    mechanism_label: str = ""
    epsilon: float = 0.0
    epsilon_display: str = "0"
    epsilon_exact: Decimal = field(default=Decimal(0))
    plain_words: str = ""
    respondent_sentence: str = ""
    spec: dict[str, Any] | None = None
    # SHARE: margin of an answer's share; MEAN: margin of the mean answer.
    margin_kind: str = SHARE
    # Respondents needed for ±5 points (SHARE) or ±5% of the range (MEAN).
    n_for_five_points: int | None = None

    @property
    def margin_display(self) -> str:
        if self.margin is None:
            return "not available for this kind yet"
        # Rounded up: the margin shown is never better than the real one.
        if self.margin_kind == MEAN:
            return f"±{_round_up(self.margin)} on the mean answer"
        return f"±{math.ceil(self.margin * 1000) / 10:.1f} percentage points"

    @property
    def needed_label(self) -> str:
        if self.margin_kind == MEAN:
            return "Respondents needed for a mean within ±5% of the range"
        return "Respondents needed for ±5 points"

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "is_private": self.is_private,
            "mechanism": self.mechanism,
            "mechanism_label": self.mechanism_label,
            "epsilon": self.epsilon,
            "epsilon_display": self.epsilon_display,
            "plain_words": self.plain_words,
            "respondent_sentence": self.respondent_sentence,
            "n": self.n,
            "level": CONFIDENCE_LEVEL,
            "margin": self.margin,
            "margin_display": self.margin_display,
            "margin_kind": self.margin_kind,
            "n_for_five_points": self.n_for_five_points,
            "needed_label": self.needed_label,
        }


def preview(
    config: PrivacyConfig, *, n: int, mechanism: ldp.Mechanism | None = None
) -> Preview:
    """Delivered ε, plain words and the worst-case 95% margin at ``n`` answers."""
    if not config.is_private:
        return Preview(
            is_private=False,
            n=n,
            margin=ldp.margin_of_error(None, n, CONFIDENCE_LEVEL),
            n_for_five_points=ldp.sample_size(None, FIVE_POINTS, CONFIDENCE_LEVEL),
            mechanism_label="Not protected",
            plain_words=(
                "Not protected: the true answer is sent and stored as given. It "
                "does not count towards the ε total."
            ),
            respondent_sentence=(
                "This answer is not randomized: the researcher sees exactly what "
                "you enter."
            ),
        )
    # Compiling can take seconds on fine numeric grids: reuse a compiled one.
    mechanism = mechanism or build(config)
    result = preview_mechanism(mechanism, n=n)
    if config.kind == "ordinal" and mechanism.name in CATEGORICAL:
        note = (
            " The scale's order is not used by this method; the order-aware "
            "method keeps answers near their true level."
        )
        result = replace(result, plain_words=result.plain_words + note)
    return result


def planning(
    mechanism: ldp.Mechanism, *, n: int
) -> tuple[float | None, int | None, str]:
    """Worst-case 95% margin at ``n``, respondents needed, and what it is of.

    Shares for categorical and multi-select mechanisms (needed: ±5 points);
    the mean for ordinal and numeric ones (needed: ±5% of the range).  None
    where ldp cannot plan the mechanism's estimate yet.
    """
    try:
        if estimate_of(mechanism.name) == MEAN:
            values = mechanism.input_values()  # type: ignore[attr-defined]
            spread = float(values.max() - values.min())
            return (
                ldp.mean_margin_of_error(mechanism, n, CONFIDENCE_LEVEL),
                ldp.mean_sample_size(mechanism, FIVE_POINTS * spread, CONFIDENCE_LEVEL),
                MEAN,
            )
        if callable(getattr(type(mechanism), "worst_case_variance", None)):
            # Multi-select shares are scaled (padding-and-sampling by ℓ), which
            # only the mechanism's own worst-case variance accounts for.
            variance = mechanism.worst_case_variance()  # type: ignore[attr-defined]
            z = float(stats.norm.ppf(1 - (1 - CONFIDENCE_LEVEL) / 2))
            return (
                z * math.sqrt(variance / n),
                math.ceil(z**2 * variance / FIVE_POINTS**2),
                SHARE,
            )
        return (
            ldp.margin_of_error(mechanism, n, CONFIDENCE_LEVEL),
            ldp.sample_size(mechanism, FIVE_POINTS, CONFIDENCE_LEVEL),
            SHARE,
        )
    except (AttributeError, NotImplementedError, TypeError, ValueError, OverflowError):
        return None, None, SHARE


def preview_mechanism(mechanism: ldp.Mechanism, *, n: int) -> Preview:
    margin, needed, kind = planning(mechanism, n=n)
    return Preview(
        is_private=True,
        n=n,
        margin=margin,
        margin_kind=kind,
        mechanism=mechanism.name,
        mechanism_label=mechanism_label(mechanism.name),
        epsilon=mechanism.epsilon,
        epsilon_display=mechanism.epsilon_display,
        epsilon_exact=mechanism.epsilon_exact,
        plain_words=describe_mechanism(mechanism),
        respondent_sentence=describe_epsilon(mechanism.epsilon),
        spec=mechanism.spec,
        n_for_five_points=needed,
    )


def total_epsilon(exact_values: list[Decimal]) -> tuple[float, str, Decimal]:
    """Sequential composition of the delivered ε of a survey's private questions.

    Returns the total (``ldp.accounting.sequential_composition``), its display
    string (the exact sum rounded up) and the exact sum, which the budget is
    enforced against.
    """
    values = list(exact_values)
    exact = sum(values, Decimal(0))
    return sequential_composition(values), display_epsilon(exact), exact
