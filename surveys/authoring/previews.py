"""What the builder shows about a compiled question: ε, plain words, margins.

Every figure comes from ldp: the delivered ε of the compiled integer weights
and the mechanism's worst-case variance (``Mechanism.worst_case_variance``, the
quantity ldp's planning functions use) for margins and sample sizes.  What
respondents will read is not worded here: the builder's page shows it with the
device's own wording module (``ldp/js/wording.js``) from the compiled spec.

Planning a fine grid takes a while, so the figures that do not depend on the
planned number of respondents are kept in Django's cache, keyed by the
compiled spec's canonical JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext
from scipy import stats

import ldp
from ldp.accounting import sequential_composition
from ldp.exact import display_epsilon, display_epsilon_significant
from ldp.mechanisms.oracle import SupportMechanism
from surveys.authoring import kinds
from surveys.authoring.catalogue import (
    MEAN,
    SHARE,
    describe_mechanism,
)
from surveys.authoring.compiled import shared_get, shared_key, shared_set
from surveys.authoring.designs import design_label_shown
from surveys.authoring.mechanisms import PrivacyConfig, build

CONFIDENCE_LEVEL = 0.95
FIVE_POINTS = 0.05
# How long a compiled spec's planning figures stay in the shared cache.
PREVIEW_CACHE_SECONDS = 24 * 3600


def _round_up(value: float, digits: int = 3) -> str:
    """``value`` rounded up to ``digits`` significant digits."""
    if value <= 0 or not math.isfinite(value):
        return f"{value:g}"
    exponent = math.floor(math.log10(value)) - digits + 1
    scaled = math.ceil(value / 10**exponent - 1e-9) * 10**exponent
    return f"{scaled:.{max(-exponent, 0)}f}"


def _number(value: float) -> str:
    """``value`` as short as ``:g`` writes it, with the active language's
    decimal sign (for the builder's sentences, never for a machine)."""
    return number_format(Decimal(f"{value:g}"))


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
    # The compiled spec: the builder's page words it with the device's module.
    spec: dict[str, Any] | None = None
    # The researcher's forced-response design (ForcedDesign.as_json), if any:
    # the device words an unrelated-question design as one.
    design: dict[str, str] | None = None
    # SHARE: margin of an answer's share; MEAN: margin of the mean answer.
    margin_kind: str = SHARE
    # Respondents needed for ±5 points (SHARE) or ±5% of the range (MEAN).
    n_for_five_points: int | None = None

    @property
    def margin_display(self) -> str:
        if self.margin is None:
            return gettext("not available for this kind yet")
        # Rounded up: the margin shown is never better than the real one.
        if self.margin_kind == MEAN:
            return gettext("±%(margin)s on the mean answer") % {
                "margin": number_format(Decimal(_round_up(self.margin)))
            }
        return gettext("±%(margin)s percentage points") % {
            "margin": number_format(math.ceil(self.margin * 1000) / 10, 1)
        }

    @property
    def needed_label(self) -> str:
        if self.margin_kind == MEAN:
            return gettext(
                "Respondents needed for a mean within ±%(points)s%% of the range"
            ) % {"points": 5}
        return gettext("Respondents needed for ±%(points)s percentage points") % {
            "points": 5
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "is_private": self.is_private,
            "mechanism": self.mechanism,
            "mechanism_label": self.mechanism_label,
            "epsilon": self.epsilon,
            "epsilon_display": self.epsilon_display,
            "plain_words": self.plain_words,
            "spec": self.spec,
            "design": self.design,
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
            mechanism_label=gettext("Not protected"),
            plain_words=gettext(
                "Not protected: the true answer is sent and stored as given. It "
                "does not count towards the ε total."
            ),
        )
    # Compiling can take a while on numeric grids: reuse a compiled one.
    mechanism = mechanism or build(config)
    design = config.design.as_json() if config.design is not None else None
    result = preview_mechanism(mechanism, n=n, design=design)
    if kinds.facts(config.kind).ordered and result.margin_kind == SHARE:
        note = gettext(
            "%(words)s The scale's order is not used by this method; the "
            "order-aware method keeps answers near their true level."
        ) % {"words": result.plain_words}
        result = replace(result, plain_words=note)
    return result


def preview_cache_key(spec: dict[str, Any]) -> str:
    """The shared-cache key of a compiled spec's planning figures.

    A SHA-256 of the spec's canonical JSON (sorted keys, no whitespace), so
    equal specs share one entry whichever question or survey they belong to
    (``surveys.authoring.compiled.shared_key``).
    """
    return shared_key("preview", spec)


def _planning_facts(mechanism: ldp.Mechanism) -> dict[str, Any]:
    """What planning needs of ``mechanism``, whatever the number of respondents.

    ``variance``: ``Mechanism.worst_case_variance()``, the worst-case ``n · Var``
    of the headline estimate (docs/maths.md, section 7), None where ldp cannot
    plan it; ``spread``: ``max v − min v`` of the answer values for mechanisms
    whose headline is the mean (``Mechanism.input_values``), None for shares;
    Kept in Django's cache under the compiled spec's canonical JSON (the plain
    words are not: they are worded in each reader's language).
    """
    key = preview_cache_key(mechanism.spec)
    facts = shared_get(key)
    if isinstance(facts, dict):
        return facts
    values = mechanism.input_values()
    try:
        variance: float | None = float(mechanism.worst_case_variance())
    except (ArithmeticError, NotImplementedError, ValueError):
        variance = None
    if variance is not None and not math.isfinite(variance):
        variance = None
    facts = {
        "variance": variance,
        "spread": None if values is None else float(values.max() - values.min()),
    }
    shared_set(key, facts, PREVIEW_CACHE_SECONDS)
    return facts


def planning(
    mechanism: ldp.Mechanism, *, n: int, facts: dict[str, Any] | None = None
) -> tuple[float | None, int | None, str]:
    """Worst-case 95% margin at ``n``, respondents needed, and what it is of.

    With ``V = Mechanism.worst_case_variance()`` and ``z`` the normal critical
    value, the margin is ``z sqrt(V/n)`` and the respondents needed for a
    margin ``h`` are ``ceil(z² V / h²)`` (``ldp.margin_of_error``,
    ``ldp.sample_size``; docs/maths.md, section 7).  Shares for categorical and
    multi-select mechanisms (``h`` = 5 points); the mean for mechanisms whose
    answers have values (``Mechanism.input_values``; ``h`` = 5% of the range).
    None where ldp cannot plan the mechanism's estimate.  ``facts``: those of
    ``_planning_facts(mechanism)`` when the caller has them already.
    """
    facts = facts or _planning_facts(mechanism)
    kind = SHARE if facts["spread"] is None else MEAN
    variance = facts["variance"]
    if variance is None or n <= 0:
        return None, None, kind
    z = ldp.critical_value(CONFIDENCE_LEVEL)
    wanted = FIVE_POINTS if kind == SHARE else FIVE_POINTS * facts["spread"]
    needed = math.ceil(z**2 * variance / wanted**2) if wanted > 0 else None
    return z * math.sqrt(variance / n), needed, kind


def preview_mechanism(
    mechanism: ldp.Mechanism, *, n: int, design: dict[str, str] | None = None
) -> Preview:
    """The builder's figures for a compiled mechanism at ``n`` respondents.

    ``design``: the question's own forced-response design (stored form), named
    in the method's label (``mechanisms.design_label_shown``, in the active
    language).

    Delivered ε from the integer weights (``Mechanism.epsilon_exact``), the
    catalogue's plain words and :func:`planning`'s margin and sample size.
    """
    facts = _planning_facts(mechanism)
    margin, needed, kind = planning(mechanism, n=n, facts=facts)
    return Preview(
        is_private=True,
        n=n,
        margin=margin,
        margin_kind=kind,
        mechanism=mechanism.name,
        mechanism_label=design_label_shown(mechanism.name, design),
        design=design,
        epsilon=mechanism.epsilon,
        # The exact ε of the compiled weights, rounded up to 3 significant
        # digits: never understated.
        epsilon_display=display_epsilon_significant(mechanism.epsilon_exact),
        epsilon_exact=mechanism.epsilon_exact,
        plain_words=describe_mechanism(mechanism),
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


@dataclass(frozen=True)
class Plan:
    """The builder's planning panel: respondents needed for the researcher's targets.

    ``for_margin``: respondents for a worst-case 95% margin of ``margin``
    (a share, or a fraction of the answer range for a mean); ``for_difference``:
    respondents to detect ``alternative`` against ``baseline`` at ``power``
    (one-sided test at 5%), None where the headline estimate is not a share.
    """

    margin: float
    baseline: float
    alternative: float
    power: float
    margin_kind: str
    for_margin: int | None
    for_difference: int | None

    @property
    def margin_label(self) -> str:
        points = _number(self.margin * 100)
        if self.margin_kind == MEAN:
            return gettext(
                "Respondents needed for a mean within ±%(points)s%% of the range"
            ) % {"points": points}
        return gettext("Respondents needed for ±%(points)s percentage points") % {
            "points": points
        }

    @property
    def difference_label(self) -> str:
        return gettext(
            "Respondents needed to tell %(alternative)s%% from %(baseline)s%% with "
            "%(power)s%% power"
        ) % {
            "alternative": _number(self.alternative * 100),
            "baseline": _number(self.baseline * 100),
            "power": _number(self.power * 100),
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "margin_label": self.margin_label,
            "for_margin": self.for_margin,
            "difference_label": self.difference_label,
            "for_difference": self.for_difference,
        }


def _direct_sample_size_for_power(
    pi0: float, pi1: float, alpha: float, power: float
) -> int:
    """``ldp.sample_size_for_power`` without randomization (``λ = π``, ``d = 1``)."""
    z_a, z_b = stats.norm.ppf(1 - alpha), stats.norm.ppf(power)
    top = z_a * math.sqrt(pi0 * (1 - pi0)) + z_b * math.sqrt(pi1 * (1 - pi1))
    return math.ceil(top**2 / (pi1 - pi0) ** 2)


def plan_study(
    mechanism: ldp.Mechanism | None,
    *,
    margin: float,
    baseline: float,
    alternative: float,
    power: float,
    alpha: float = 0.05,
) -> Plan:
    """Respondents needed for a target margin and for a difference at a power.

    Margin: ``ceil(z² V / h²)`` with ``V = Mechanism.worst_case_variance()``
    (``ldp.sample_size``; docs/maths.md, section 7), ``h = margin`` for shares
    and ``margin · (max v − min v)`` for means.  Difference:
    ``ldp.sample_size_for_power`` (one-sided test of ``π = baseline`` when
    ``π = alternative``, ``λ = q* + (p* − q*) π``; Blair, Imai & Zhou, JASA
    2015) on "Yes" for yes/no questions and on the first option otherwise.
    ``mechanism`` None: a question asked directly (``V = 1/4``, ``λ = π``).
    """
    targets = {
        "margin": margin,
        "baseline": baseline,
        "alternative": alternative,
        "power": power,
    }
    z = ldp.critical_value(CONFIDENCE_LEVEL)
    if mechanism is None:
        return Plan(
            **targets,
            margin_kind=SHARE,
            for_margin=math.ceil(z**2 * 0.25 / margin**2),
            for_difference=_direct_sample_size_for_power(
                baseline, alternative, alpha, power
            ),
        )
    facts = _planning_facts(mechanism)
    kind = SHARE if facts["spread"] is None else MEAN
    variance = facts["variance"]
    wanted = margin if kind == SHARE else margin * facts["spread"]
    for_margin = (
        math.ceil(z**2 * variance / wanted**2)
        if variance is not None and wanted > 0
        else None
    )
    for_difference = None
    if kind == SHARE and isinstance(mechanism, SupportMechanism):
        value = 1 if mechanism.k == 2 else 0
        for_difference = ldp.sample_size_for_power(
            mechanism, baseline, alternative, alpha, power, value=value
        )
    return Plan(
        **targets,
        margin_kind=kind,
        for_margin=for_margin,
        for_difference=for_difference,
    )
