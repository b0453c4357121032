"""A forced-response design the researcher chooses, in words and checked.

A mechanism that takes a design instead of an ε (forced response:
``takes_design`` in its ldp module) uses the symmetric design from ε unless
the researcher gives a custom split or the unrelated-question design; this
module holds that choice (:class:`ForcedDesign`), its checks and its words.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext

from ldp.mechanisms import registry
from ldp.mechanisms.binary import unrelated_question_design
from surveys.authoring.catalogue import mechanism_label, mechanism_label_shown
from surveys.authoring.ldp_words import localized_number

SYMMETRIC, CUSTOM, UNRELATED_QUESTION = "symmetric", "custom", "unrelated_question"
DESIGN_KINDS = (CUSTOM, UNRELATED_QUESTION)
# Designs are given in tenths of a percent: every probability is a multiple
# of 1/1000 (the unrelated-question design's a = (1 − t)π then has
# denominator at most 10^6, compiled exactly).
DESIGN_QUANTUM = Fraction(1, 1000)


def _percent_text(value: Fraction) -> str:
    """A design probability as a percentage: 1/5 → "20", 1/8 → "12.5"."""
    return f"{float(value * 100):g}"


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
    """The researcher's design stored with a question, if any (None for a
    mechanism that takes no design, no design, or one that no longer reads)."""
    family = registry.find(name)
    if family is None or not family.takes_design or not stored:
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


def _checks(design: ForcedDesign) -> list[tuple[str, Any, str, str, bool]]:
    """Per form field: (field, value, out-of-range sentence, not-a-tenth
    sentence, must be below 100%).  Each field's messages are whole sentences
    (word order differs between languages)."""
    if design.kind == UNRELATED_QUESTION:
        return [
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
        return [
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


def design_problems(design: ForcedDesign) -> dict[str, list[str]]:
    """What is wrong with a researcher's design, keyed by form field.

    A custom split needs ``t, a, b > 0`` (a forced answer of 0 makes that
    report prove the answer: ε = ∞; a truthful share of 0 carries no
    information) with ``t + a + b = 1``; an unrelated-question design
    ``0 < t < 1`` and ``0 < π < 1``.  Every probability is a whole or a
    tenth of a percent (a multiple of ``DESIGN_QUANTUM``).
    """
    errors: dict[str, list[str]] = {}
    example = localized_number(Decimal("12.5"))
    for field_name, value, out_of_range, not_tenth, below_100 in _checks(design):
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
