"""From a question's kind and privacy settings to an ldp spec, in one place.

A question's privacy configuration (kind, answer domain, requested ε, chosen
mechanism) becomes a *requested* spec here, compiled by ``ldp.build`` through
the process-wide cache (``surveys.authoring.compiled``).  A
new kind plugs in with a row in ``KIND_RULES``; a new mechanism with one entry
in ``surveys.authoring.catalogue`` (its label, kinds and wording).  A mechanism
offered there but not yet registered in ``ldp`` is reported as "not available
yet" instead of failing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from django.utils.formats import number_format
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

import ldp
from ldp.exact import exp_decimal
from ldp.mechanisms import REGISTRY
from ldp.mechanisms.binary import unrelated_question_design
from surveys.authoring.catalogue import (
    mechanism_label,
    mechanism_label_shown,
    mechanisms_for_kind,
)
from surveys.authoring.compiled import (
    compiled_mechanism,
    shared_get,
    shared_key,
    shared_set,
)

DEFAULT_EPSILON = 1.0
EPSILON_MAX = float(ldp.EPSILON_MAX)
YES_NO_OPTIONS = ("No", "Yes")  # answer 1 is "yes" in every binary spec
FORCED_RESPONSE_DENOMINATOR = 1000
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
ORDINAL_K_MAX = 101  # the ldp spec's limit for the order-aware mechanism

RECOMMENDED_LABEL = gettext_lazy("Recommended (lowest error for this question)")

CATEGORICAL = mechanisms_for_kind("single_choice")
ORDINAL_MECHANISMS = tuple(
    name for name in mechanisms_for_kind("ordinal") if name not in CATEGORICAL
)
NUMERIC_MECHANISMS = mechanisms_for_kind("numeric")
MULTI_SELECT_MECHANISMS = mechanisms_for_kind("multi_select")


class MechanismError(ValueError):
    """The privacy configuration cannot be compiled; the message says why."""


class MechanismUnavailable(MechanismError):
    """The kind or mechanism is designed here but ldp cannot build it yet."""


SYMMETRIC, CUSTOM, UNRELATED_QUESTION = "symmetric", "custom", "unrelated_question"
DESIGN_KINDS = (CUSTOM, UNRELATED_QUESTION)
# Designs are given in tenths of a percent: every probability is a multiple
# of 1/1000 (the unrelated-question design's a = (1 − t)π then has
# denominator at most 10^6, compiled exactly).
DESIGN_QUANTUM = Fraction(1, 1000)


def _percent_text(value: Fraction) -> str:
    """A design probability as a percentage: 1/5 → "20", 1/8 → "12.5"."""
    return f"{float(value * 100):g}"


def localized_number(
    value: float | Decimal | int | str, *, grouping: bool = False
) -> str:
    """A number inside a message a person reads, in the active language's
    format (``django.utils.formats.number_format``: "12.5" in English, "12,5"
    in Spanish and French).  A float is written as short as ``:g`` writes it;
    ``grouping`` separates thousands ("10,000", "10.000", "10 000").  A string
    that is not a number (such as "∞") is returned as it is."""
    if isinstance(value, float):
        value = Decimal(format(value, "g"))
    elif isinstance(value, str):
        try:
            value = Decimal(value)
        except InvalidOperation:
            return value
    if isinstance(value, Decimal) and not value.is_finite():
        return str(value)
    return number_format(value, force_grouping=grouping)


def _percent(value: Fraction) -> str:
    """A design probability as a localized percentage number (no % sign)."""
    return localized_number(_percent_text(value))


@dataclass(frozen=True)
class ForcedDesign:
    """A forced-response design the researcher chose instead of the symmetric one.

    ``CUSTOM``: report the truth with probability ``t``, "yes" with ``a`` and
    "no" with ``b`` (``t + a + b = 1``; Boruch 1971, Fox & Tracy 1986).
    ``UNRELATED_QUESTION``: report the truth with probability ``t`` and
    otherwise a device-drawn innocuous answer, "yes" with known prevalence
    ``π`` (Greenberg et al., JASA 64(326), 1969, in its ε-LDP form): the
    forced-response design ``(t, (1 − t)π, (1 − t)(1 − π))``
    (``ldp.mechanisms.binary.unrelated_question_design``).  Either way
    ``ε = max(ln((t + a)/a), ln((t + b)/b))`` (docs/maths.md, section 2.7).
    """

    kind: str
    truthful: Fraction | None = None  # None only before validation
    forced_yes: Fraction | None = None  # CUSTOM
    forced_no: Fraction | None = None  # CUSTOM
    prevalence: Fraction | None = None  # UNRELATED_QUESTION

    def fractions(self) -> dict[str, Fraction]:
        """The exact design ``{truthful, forced_yes, forced_no}``."""
        if self.kind == UNRELATED_QUESTION:
            return unrelated_question_design(self.truthful, self.prevalence)
        return {
            "truthful": self.truthful or Fraction(0),
            "forced_yes": self.forced_yes or Fraction(0),
            "forced_no": self.forced_no or Fraction(0),
        }

    def as_json(self) -> dict[str, str]:
        """The design as stored and exported: exact ``"p/q"`` strings."""
        if self.kind == UNRELATED_QUESTION:
            values = {"truthful": self.truthful, "prevalence": self.prevalence}
        else:
            values = {
                "truthful": self.truthful,
                "forced_yes": self.forced_yes,
                "forced_no": self.forced_no,
            }
        return {"type": self.kind} | {k: str(v) for k, v in values.items()}

    @classmethod
    def from_json(cls, data: Any) -> ForcedDesign:
        """A design from :meth:`as_json`'s form; ValueError saying what is wrong."""
        fields = {
            CUSTOM: ("truthful", "forced_yes", "forced_no"),
            UNRELATED_QUESTION: ("truthful", "prevalence"),
        }
        kind = data.get("type") if isinstance(data, dict) else None
        if kind not in fields:
            raise ValueError(
                gettext("the design's “type” is %(type)s; allowed: %(allowed)s")
                % {"type": repr(kind), "allowed": ", ".join(DESIGN_KINDS)}
            )
        if set(data) != {"type", *fields[kind]}:
            raise ValueError(
                gettext(
                    "a %(type)s design has exactly the fields type, %(fields)s "
                    "(got %(got)s)"
                )
                % {
                    "type": kind,
                    "fields": ", ".join(fields[kind]),
                    "got": ", ".join(sorted(data)),
                }
            )
        values: dict[str, Fraction] = {}
        for name in fields[kind]:
            raw = data[name]
            try:
                if not isinstance(raw, str):
                    raise TypeError
                values[name] = Fraction(raw)
            except (TypeError, ValueError, ZeroDivisionError):
                raise ValueError(
                    gettext(
                        "the design's “%(field)s” is %(value)s; allowed: a "
                        'fraction such as "7/10"'
                    )
                    % {"field": name, "value": f"{raw!r:.40}"}
                ) from None
        return cls(kind=kind, **values)

    def describe(self) -> str:
        """The design in words, as the builder and the results name it."""
        if self.kind == UNRELATED_QUESTION:
            return (
                "unrelated-question design: true answer "
                f"{_percent_text(self.truthful or Fraction(0))}%, "
                "otherwise a made-up answer drawn on the device, “yes” "
                f"{_percent_text(self.prevalence or Fraction(0))}% of the time"
            )
        return (
            "custom split: true answer "
            f"{_percent_text(self.truthful or Fraction(0))}%, "
            f"“yes” {_percent_text(self.forced_yes or Fraction(0))}%, "
            f"“no” {_percent_text(self.forced_no or Fraction(0))}%"
        )

    def describe_shown(self) -> str:
        """:meth:`describe` in the active language, its numbers that language's
        way ("70,5" in Spanish and French): what a page shows."""
        if self.kind == UNRELATED_QUESTION:
            return gettext(
                "unrelated-question design: true answer %(truthful)s%%, otherwise "
                "a made-up answer drawn on the device, “yes” %(prevalence)s%% of "
                "the time"
            ) % {
                "truthful": _percent(self.truthful or Fraction(0)),
                "prevalence": _percent(self.prevalence or Fraction(0)),
            }
        return gettext(
            "custom split: true answer %(truthful)s%%, “yes” %(yes)s%%, “no” %(no)s%%"
        ) % {
            "truthful": _percent(self.truthful or Fraction(0)),
            "yes": _percent(self.forced_yes or Fraction(0)),
            "no": _percent(self.forced_no or Fraction(0)),
        }


def _stored_design(name: str, stored: dict[str, str] | None) -> ForcedDesign | None:
    """The researcher's forced-response design stored with a question, if any
    (None for other methods, no design, or one that no longer reads)."""
    if name != "forced_response" or not stored:
        return None
    try:
        return ForcedDesign.from_json(stored)
    except ValueError:
        return None


def design_label(name: str, stored: dict[str, str] | None) -> str:
    """The method's label with the researcher's design, if any: "Forced
    response, custom split: true answer 70%, “yes” 20%, “no” 10%" (what the
    builder's preview and the dashboard card name)."""
    label = mechanism_label(name)
    design = _stored_design(name, stored)
    return label if design is None else f"{label}, {design.describe()}"


def design_label_shown(name: str, stored: dict[str, str] | None) -> str:
    """:func:`design_label` in the active language, for a page (exports and the
    API keep :func:`design_label`, in English)."""
    label = mechanism_label_shown(name)
    design = _stored_design(name, stored)
    if design is None:
        return label
    return gettext("%(mechanism)s, %(design)s") % {
        "mechanism": label,
        "design": design.describe_shown(),
    }


def design_problems(design: ForcedDesign) -> dict[str, list[str]]:
    """What is wrong with a researcher's design, keyed by form field.

    A custom split needs ``t, a, b > 0`` (a forced answer of 0 makes that
    report prove the answer: ε = ∞; a truthful share of 0 carries no
    information) with ``t + a + b = 1``; an unrelated-question design
    ``0 < t < 1`` and ``0 < π < 1``.  Every probability is a whole or a
    tenth of a percent (a multiple of ``DESIGN_QUANTUM``).
    """
    errors: dict[str, list[str]] = {}
    # Each field's messages are whole sentences (word order differs between
    # languages): out of range, and not a whole or a tenth of a percent.
    if design.kind == UNRELATED_QUESTION:
        checks = [
            (
                "uq_truthful",
                design.truthful,
                gettext(
                    "The truthful percentage is %(value)s%%; allowed: more than 0 "
                    "and less than 100."
                ),
                gettext(
                    "The truthful percentage is %(value)s%%; allowed: a whole or a "
                    "tenth of a percent, e.g. %(example)s."
                ),
                True,
            ),
            (
                "uq_prevalence",
                design.prevalence,
                gettext(
                    "The prevalence is %(value)s%%; allowed: more than 0 and less "
                    "than 100 (at 0 or 100 one report would prove the answer)."
                ),
                gettext(
                    "The prevalence is %(value)s%%; allowed: a whole or a tenth of "
                    "a percent, e.g. %(example)s."
                ),
                True,
            ),
        ]
    else:
        checks = [
            (
                "fr_truthful",
                design.truthful,
                gettext(
                    "The truthful percentage is %(value)s%%; allowed: more than 0."
                ),
                gettext(
                    "The truthful percentage is %(value)s%%; allowed: a whole or a "
                    "tenth of a percent, e.g. %(example)s."
                ),
                False,
            ),
            (
                "fr_forced_yes",
                design.forced_yes,
                gettext(
                    "The forced “yes” percentage is %(value)s%%; allowed: more than "
                    "0 (at 0 a report could prove the answer)."
                ),
                gettext(
                    "The forced “yes” percentage is %(value)s%%; allowed: a whole "
                    "or a tenth of a percent, e.g. %(example)s."
                ),
                False,
            ),
            (
                "fr_forced_no",
                design.forced_no,
                gettext(
                    "The forced “no” percentage is %(value)s%%; allowed: more than "
                    "0 (at 0 a report could prove the answer)."
                ),
                gettext(
                    "The forced “no” percentage is %(value)s%%; allowed: a whole or "
                    "a tenth of a percent, e.g. %(example)s."
                ),
                False,
            ),
        ]
    example = localized_number(Decimal("12.5"))
    for field_name, value, out_of_range, not_tenth, below_100 in checks:
        if value is None:
            errors[field_name] = [gettext("Required for this design.")]
        elif value <= 0 or (below_100 and value >= 1):
            errors[field_name] = [out_of_range % {"value": _percent(value)}]
        elif value % DESIGN_QUANTUM:
            shown = localized_number(f"{float(value * 100):.6g}")
            errors[field_name] = [not_tenth % {"value": shown, "example": example}]
    if design.kind == CUSTOM and not errors:
        total = sum(
            (
                v or Fraction(0)
                for v in (design.truthful, design.forced_yes, design.forced_no)
            ),
            Fraction(0),
        )
        if total != 1:
            errors["fr_truthful"] = [
                gettext(
                    "The three percentages add up to %(total)s%%; they must add up "
                    "to exactly 100."
                )
                % {"total": _percent(total)}
            ]
    return errors


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
    # Forced response only: a custom split or the unrelated-question design;
    # None = the symmetric design from ε.
    design: ForcedDesign | None = None

    @property
    def k(self) -> int:
        return len(self.options)


@dataclass(frozen=True)
class KindRule:
    """How one question kind maps to specs."""

    label: str | Promise  # the kind's name in the active language
    mechanisms: tuple[str, ...]  # offered for the kind: the catalogue's order
    default: Callable[[PrivacyConfig], str]
    domain: Callable[[PrivacyConfig], dict[str, Any]]
    uses_options: bool = True


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
    if config.kind != "numeric" or levels is None:
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


def _recommended_categorical(config: PrivacyConfig) -> str:
    """ldp's recommendation, among the mechanisms a choice question offers.

    For two options ``ldp.recommend`` names Warner's design, which a choice
    question does not offer; generalized randomized response with k = 2 is the
    same channel (the true option with probability e^ε / (e^ε + 1); Wang et
    al., USENIX Security 2017, section 4.1), so that is the one chosen.
    """
    name = ldp.recommend(k=config.k, epsilon=config.epsilon).mechanism
    return name if name in CATEGORICAL else "grr"


def _first_available(*names: str) -> Callable[[PrivacyConfig], str]:
    def choose(config: PrivacyConfig) -> str:
        for name in names:
            if name in REGISTRY:
                return name
        return names[0]

    return choose


def _ordinal_default(config: PrivacyConfig) -> str:
    for name in ORDINAL_MECHANISMS:
        if name in REGISTRY and config.k <= ORDINAL_K_MAX:
            return name
    # Without an order-aware mechanism (or beyond its k), levels are categories.
    return _recommended_categorical(config)


def _k_domain(config: PrivacyConfig) -> dict[str, Any]:
    return {"k": config.k}


def _decimal_string(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _grid_domain(config: PrivacyConfig) -> dict[str, Any]:
    # The spec writes the grid as decimal strings ("0", "100", "0.5").
    return {
        "low": _decimal_string(config.low),
        "high": _decimal_string(config.high),
        "step": _decimal_string(config.step),
    }


def _recommended_numeric(config: PrivacyConfig) -> str:
    if not hasattr(ldp, "recommend_numeric"):
        return _first_available(*NUMERIC_MECHANISMS)(config)
    domain = _grid_domain(config)
    return ldp.recommend_numeric(epsilon=config.epsilon, **domain).mechanism


def _recommended_multiselect(config: PrivacyConfig) -> str:
    if not hasattr(ldp, "recommend_multiselect"):
        return _first_available(*MULTI_SELECT_MECHANISMS)(config)
    return ldp.recommend_multiselect(
        k=config.k,
        epsilon=config.epsilon,
        max_selections=config.max_selections or config.k,
    ).mechanism


KIND_RULES: dict[str, KindRule] = {
    "yes_no": KindRule(
        gettext_lazy("Yes / no"),
        mechanisms_for_kind("yes_no"),
        lambda config: "warner",
        lambda config: {"k": 2},
        uses_options=False,
    ),
    "single_choice": KindRule(
        gettext_lazy("Single choice"), CATEGORICAL, _recommended_categorical, _k_domain
    ),
    "ordinal": KindRule(
        gettext_lazy("Scale"),
        mechanisms_for_kind("ordinal"),
        _ordinal_default,
        _k_domain,
    ),
    "numeric": KindRule(
        gettext_lazy("Number in a range"),
        NUMERIC_MECHANISMS,
        _recommended_numeric,
        _grid_domain,
        uses_options=False,
    ),
    "multi_select": KindRule(
        gettext_lazy("Multiple selections"),
        MULTI_SELECT_MECHANISMS,
        _recommended_multiselect,
        _k_domain,
    ),
}


def mechanism_choices(kind: str | None = None) -> list[tuple[str, str | Promise]]:
    """(value, label) pairs offered for ``kind`` (all kinds when None)."""
    if kind is None:
        names: list[str] = []
        for rule in KIND_RULES.values():
            names += [name for name in rule.mechanisms if name not in names]
    else:
        names = list(KIND_RULES[kind].mechanisms)
    return [("", RECOMMENDED_LABEL)] + [
        (
            name,
            mechanism_label(name)
            + ("" if name in REGISTRY else " (not available yet)"),
        )
        for name in names
    ]


def is_available(kind: str) -> bool:
    """True when ldp can build at least one mechanism offered for ``kind``."""
    return any(name in REGISTRY for name in KIND_RULES[kind].mechanisms)


def forced_response_design(epsilon: float) -> dict[str, str]:
    """A symmetric forced-response design (t, a, a) in thousandths, ε' <= ε.

    ``a = ceil(1000/(e^ε + 1))/1000`` so that ``(t + a)/a <= e^ε``.
    """
    e = exp_decimal(epsilon)
    forced = math.ceil(Decimal(FORCED_RESPONSE_DENOMINATOR) / (e + 1))
    truthful = FORCED_RESPONSE_DENOMINATOR - 2 * forced
    if truthful < 1:
        raise MechanismError(
            gettext(
                "ε = %(epsilon)s is too small for forced response; allowed: "
                "ε >= %(lowest)s (or choose Warner randomized response)"
            )
            % {
                "epsilon": localized_number(epsilon),
                "lowest": localized_number(Decimal("0.005")),
            }
        )
    d = FORCED_RESPONSE_DENOMINATOR
    return {
        "truthful": str(Fraction(truthful, d)),
        "forced_yes": str(Fraction(forced, d)),
        "forced_no": str(Fraction(forced, d)),
    }


def recommendation_cache_key(config: PrivacyConfig) -> str:
    """The shared-cache key of the recommendation for ``config``'s kind, domain
    (options count or grid) and ε (``compiled.shared_key``)."""
    rule = KIND_RULES[config.kind]
    facts = {"kind": config.kind, "epsilon": config.epsilon, **rule.domain(config)}
    if config.kind == "multi_select":
        facts["max_selections"] = config.max_selections or config.k
    return shared_key("recommended", facts)


def _recommended(config: PrivacyConfig, rule: KindRule) -> str:
    """The kind's recommended mechanism, kept in the shared cache per domain and ε.

    The recommendation compiles every candidate, so a preview repeated with
    the same settings (or in another web process) reuses the choice.
    """
    key = recommendation_cache_key(config)
    name = shared_get(key)
    if not isinstance(name, str):
        name = rule.default(config)
        shared_set(key, name, RECOMMENDATION_CACHE_SECONDS)
    return name


def requested_spec(config: PrivacyConfig) -> dict[str, Any]:
    """The requested ldp spec for a private question.

    Raises MechanismUnavailable for kinds or mechanisms ldp cannot build yet and
    MechanismError for a mechanism not offered for the kind.
    """
    rule = KIND_RULES.get(config.kind)
    if rule is None:
        raise MechanismError(
            gettext("question kind %(kind)s is unknown; allowed: %(allowed)s")
            % {"kind": repr(config.kind), "allowed": sorted(KIND_RULES)}
        )
    if not is_available(config.kind):
        raise MechanismUnavailable(
            gettext(
                "Private %(kind)s questions are not available yet: their "
                "randomization is still being built. Use another kind, or mark the "
                "question as not protected."
            )
            % {"kind": str(rule.label).lower()}
        )
    if problem := numeric_cost_problem(config):
        raise MechanismError(problem[1])
    name = config.mechanism or _recommended(config, rule)
    if name not in rule.mechanisms:
        allowed = ", ".join(mechanism_label(n) for n in rule.mechanisms)
        raise MechanismError(
            gettext(
                "%(mechanism)s is not offered for %(kind)s questions; allowed: "
                "%(allowed)s, or Recommended."
            )
            % {
                "mechanism": mechanism_label(name),
                "kind": str(rule.label).lower(),
                "allowed": allowed,
            }
        )
    if name not in REGISTRY:
        raise MechanismUnavailable(
            gettext(
                "%(mechanism)s is not available yet; choose Recommended or another "
                "mechanism."
            )
            % {"mechanism": mechanism_label(name)}
        )
    if config.design is not None and name != "forced_response":
        raise MechanismError(
            gettext(
                "A custom split or an unrelated-question design is a "
                "forced-response design, not %(mechanism)s: choose Forced response "
                "as the method, or the symmetric design."
            )
            % {"mechanism": mechanism_label(name)}
        )
    spec: dict[str, Any] = {"version": ldp.SPEC_VERSION, "mechanism": name}
    spec.update(rule.domain(config))
    if name == "forced_response" and config.design is not None:
        if problems := design_problems(config.design):
            raise MechanismError(" ".join(m for ms in problems.values() for m in ms))
        spec["design"] = {k: str(v) for k, v in config.design.fractions().items()}
    elif name == "forced_response":
        spec["design"] = forced_response_design(config.epsilon)
    else:
        spec["epsilon"] = config.epsilon
    if name == "padding_sampling":
        spec["ell"] = config.max_selections or config.k
    return spec


def build(config: PrivacyConfig) -> ldp.Mechanism:
    """Compile a private question's configuration (through the process cache)."""
    spec = requested_spec(config)
    try:
        return compiled_mechanism(spec)
    except ValueError as error:
        raise MechanismError(
            gettext("This setting cannot be compiled: %(error)s") % {"error": error}
        ) from None
