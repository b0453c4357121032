"""From a question's kind and privacy settings to an ldp spec, in one place.

A question's privacy configuration (kind, answer domain, requested ε, chosen
mechanism) becomes a *requested* spec here, compiled by ``ldp.build`` through
the process-wide cache (``surveys.authoring.compiled``).  Which mechanisms a
kind offers, and how each builds its spec from the answers and ε, comes from
the mechanisms (``ldp.mechanisms.registry``); what the kind decides (its
answer domain, whether its answers are ordered) from ``surveys.authoring.kinds``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

import ldp
from ldp.mechanisms import registry
from ldp.mechanisms.about import MEAN
from ldp.mechanisms.words import WordedError
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.compiled import (
    compiled_mechanism,
    shared_get,
    shared_key,
    shared_set,
)
from surveys.authoring.designs import ForcedDesign, design_problems
from surveys.authoring.kinds import KINDS, facts
from surveys.authoring.ldp_words import localized_number, shown
from surveys.authoring.models import Question

DEFAULT_EPSILON = 1.0
EPSILON_MAX = float(ldp.EPSILON_MAX)
YES_NO_OPTIONS = facts(Question.Kind.YES_NO).fixed_options
# Bounded cost (README, "Limits"; benchmarks/page_cost.py measures it).  Two
# things drive the cost of compiling a numeric grid and planning its margins:
# the number of levels (channel matrices of levels × outputs, so the work grows
# with the square) and a small ε: calibrating the discrete Gaussian and the
# geometric mechanism (all compiled when the method is recommended) takes longer
# the smaller ε, and the Gaussian's noise spreads over ~levels/√ε grid steps.
# Bounding levels, and ε from below by levels ÷ 10,000 (never below 0.01),
# keeps the builder's preview and "add question" within budget; ldp's own
# limits (1001 levels, any ε > 0) allowed seconds per request, or more memory
# than the server has.
NUMERIC_LEVELS_MAX = 201
NUMERIC_LEVELS_PER_EPSILON_MAX = 10_000
NUMERIC_EPSILON_MIN = 0.01
# The recommendation for a question's domain and ε is kept this long in the
# shared cache (it compiles every candidate mechanism).
RECOMMENDATION_CACHE_SECONDS = 24 * 3600

RECOMMENDED_LABEL = gettext_lazy("Recommended (lowest error for this question)")


class MechanismError(ValueError):
    """The privacy configuration cannot be compiled; the message says why."""


@dataclass(frozen=True)
class PrivacyConfig:
    """Everything about a question that decides how its answer is randomized."""

    kind: str
    is_private: bool = True
    options: tuple[str, ...] = ()
    epsilon: float = DEFAULT_EPSILON
    mechanism: str = ""  # "" = recommended
    low: Decimal | None = None
    high: Decimal | None = None
    step: Decimal | None = None
    max_selections: int | None = None  # multi-select; None = every option
    # A mechanism that takes a design (forced response) only: a custom split
    # or the unrelated-question design; None = the symmetric design from ε.
    design: ForcedDesign | None = None
    # An unprotected choice question only: "Other, please specify" last.
    other_option: bool = False

    @property
    def k(self) -> int:
        return len(self.options)


def numeric_levels(config: PrivacyConfig) -> int | None:
    """Number of grid values from ``low`` to ``high`` in steps of ``step``.

    ``(high - low) / step + 1``; None when the grid is incomplete or the range
    is not a whole number of steps (validation reports those).
    """
    low, high, step = config.low, config.high, config.step
    if low is None or high is None or step is None or step <= 0 or high <= low:
        return None
    steps = (high - low) / step
    if steps != steps.to_integral_value():
        return None
    return int(steps) + 1


def numeric_epsilon_min(levels: int) -> float:
    """The smallest ε a protected numeric question with ``levels`` values may
    request: ``max(NUMERIC_EPSILON_MIN, levels / NUMERIC_LEVELS_PER_EPSILON_MAX)``."""
    return max(NUMERIC_EPSILON_MIN, levels / NUMERIC_LEVELS_PER_EPSILON_MAX)


def numeric_cost_problem(config: PrivacyConfig) -> tuple[str, str] | None:
    """Why a numeric question would cost the server too much, as (field, message).

    Refused: more than ``NUMERIC_LEVELS_MAX`` levels, or (protected questions)
    ε below :func:`numeric_epsilon_min`.  None when within both (or not a
    complete numeric grid: validation reports that).
    """
    levels = numeric_levels(config)
    if config.kind not in KINDS or not facts(config.kind).grid or levels is None:
        return None
    if levels > NUMERIC_LEVELS_MAX:
        return (
            "numeric_step",
            gettext(
                "That gives %(levels)s possible values; allowed: at most "
                "%(most)s, because working out the randomization and its margin "
                "of error for a finer grid takes the server too long. Use a "
                "larger step or a narrower range."
            )
            % {
                "levels": localized_number(levels),
                "most": localized_number(NUMERIC_LEVELS_MAX),
            },
        )
    lowest = numeric_epsilon_min(levels)
    if config.is_private and config.epsilon is not None and 0 < config.epsilon < lowest:
        return (
            "requested_epsilon",
            gettext(
                "ε = %(epsilon)s is too small for %(levels)s possible values; "
                "allowed: at least %(lowest)s (values ÷ %(per_epsilon)s, and never "
                "below %(floor)s), because working out the randomization for a "
                "smaller ε on this many values takes the server too long (and "
                "answers that noisy say almost nothing). Choose a larger ε, or "
                "fewer values (a larger step)."
            )
            % {
                "epsilon": localized_number(config.epsilon),
                "levels": localized_number(levels),
                "lowest": localized_number(lowest),
                "per_epsilon": localized_number(
                    NUMERIC_LEVELS_PER_EPSILON_MAX, grouping=True
                ),
                "floor": localized_number(NUMERIC_EPSILON_MIN),
            },
        )
    return None


def _decimal_string(value: Decimal | None) -> str:
    return format(value.normalize(), "f") if value is not None else ""


def answer_domain(config: PrivacyConfig) -> dict[str, Any]:
    """The answers a spec randomizes: a grid ``{"low", "high", "step"}`` as
    decimal strings ("0", "100", "0.5"), two answers for yes/no, else the
    ``k`` options."""
    kind = facts(config.kind)
    if kind.grid:
        return {
            "low": _decimal_string(config.low),
            "high": _decimal_string(config.high),
            "step": _decimal_string(config.step),
        }
    return {"k": len(kind.fixed_options) if kind.fixed_options else config.k}


def _default_mechanism(config: PrivacyConfig) -> str:
    """The kind's recommended mechanism for ``config``'s answers and ε.

    A number: ``ldp.recommend_numeric``; multiple selections:
    ``ldp.recommend_multiselect``.  Ordered answers (a scale) keep their order
    with the kind's order-aware mechanism (its headline is the mean), if it
    takes this many levels; otherwise, and for choices, the frequency oracle
    of the kind with the lowest variance (``ldp.recommend``; for two options
    of a choice question that is generalized randomized response, the same
    channel as Warner's, Wang et al., USENIX Security 2017, section 4.1).
    """
    kind, answers = facts(config.kind), answer_domain(config)
    if kind.grid:
        return ldp.recommend_numeric(epsilon=config.epsilon, **answers).mechanism
    if kind.several:
        return ldp.recommend_multiselect(
            k=config.k,
            epsilon=config.epsilon,
            max_selections=config.max_selections or config.k,
        ).mechanism
    offered = registry.for_kind(config.kind)
    if kind.ordered:
        for family in offered:
            if family.headline == MEAN and family.accepts(answers):
                return family.name
    return ldp.recommend(
        k=answers["k"], epsilon=config.epsilon, kind=config.kind
    ).mechanism


def mechanism_choices(kind: str | None = None) -> list[tuple[str, str | Promise]]:
    """(value, label) pairs offered for ``kind`` (every mechanism when None)."""
    families = registry.MECHANISMS if kind is None else registry.for_kind(kind)
    return [("", RECOMMENDED_LABEL)] + [
        (family.name, family.label) for family in families
    ]


def recommendation_cache_key(config: PrivacyConfig) -> str:
    """The shared-cache key of the recommendation for ``config``'s kind, domain
    (options count or grid) and ε (``compiled.shared_key``)."""
    found = {"kind": config.kind, "epsilon": config.epsilon, **answer_domain(config)}
    if facts(config.kind).several:
        found["max_selections"] = config.max_selections or config.k
    return shared_key("recommended", found)


def _recommended(config: PrivacyConfig) -> str:
    """The kind's recommended mechanism, kept in the shared cache per domain and ε.

    The recommendation compiles every candidate, so a preview repeated with
    the same settings (or in another web process) reuses the choice.
    """
    key = recommendation_cache_key(config)
    name = shared_get(key)
    if not isinstance(name, str):
        name = _default_mechanism(config)
        shared_set(key, name, RECOMMENDATION_CACHE_SECONDS)
    return name


def _offered(config: PrivacyConfig) -> type[ldp.Mechanism]:
    """The chosen (or recommended) mechanism, if the kind offers it."""
    name = config.mechanism or _recommended(config)
    family = registry.find(name)
    if family is None or config.kind not in family.kinds:
        offered = registry.for_kind(config.kind)
        raise MechanismError(
            gettext(
                "%(mechanism)s is not offered for %(kind)s questions; allowed: "
                "%(allowed)s, or Recommended."
            )
            % {
                "mechanism": mechanism_label(name),
                "kind": str(facts(config.kind).label).lower(),
                "allowed": ", ".join(f.label for f in offered),
            }
        )
    return family


def requested_spec(config: PrivacyConfig) -> dict[str, Any]:
    """The requested ldp spec for a private question.

    Raises MechanismError for an unknown kind, a mechanism not offered for the
    kind, a design given to a mechanism that takes none, or settings the
    mechanism cannot honour.
    """
    if config.kind not in KINDS:
        raise MechanismError(
            gettext("question kind %(kind)s is unknown; allowed: %(allowed)s")
            % {"kind": repr(config.kind), "allowed": sorted(KINDS)}
        )
    if problem := numeric_cost_problem(config):
        raise MechanismError(problem[1])
    family = _offered(config)
    design = None
    if config.design is not None:
        if not family.takes_design:
            raise MechanismError(
                gettext(
                    "A custom split or an unrelated-question design is a "
                    "forced-response design, not %(mechanism)s: choose Forced "
                    "response as the method, or the symmetric design."
                )
                % {"mechanism": mechanism_label(family.name)}
            )
        if problems := design_problems(config.design):
            raise MechanismError(" ".join(m for ms in problems.values() for m in ms))
        design = {k: str(v) for k, v in config.design.fractions().items()}
    try:
        return family.request(
            answer_domain(config),
            config.epsilon,
            max_selections=config.max_selections,
            design=design,
        )
    except WordedError as error:
        raise MechanismError(shown(error.words)) from None


def build(config: PrivacyConfig) -> ldp.Mechanism:
    """Compile a private question's configuration (through the process cache)."""
    spec = requested_spec(config)
    try:
        return compiled_mechanism(spec)
    except ValueError as error:
        raise MechanismError(
            gettext("This setting cannot be compiled: %(error)s") % {"error": error}
        ) from None
