"""What a question's kind decides, in one place.

A question kind (``Question.Kind``: yes/no, single choice, scale, number,
multiple selections, open text) is a survey concept; what depends on it, outside the
mechanisms, is here as one :class:`KindFacts` per kind: its name in the
builder, whether the researcher lists its options or gives a number range,
whether its answers are ordered, have values (a mean, bins) or are one
choice among labelled answers, and whether several may be ticked.  Which
mechanisms a kind may use comes from the mechanisms themselves
(``ldp.mechanisms.registry``: each declares its kinds, with the same names).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from ldp.mechanisms import registry
from surveys.authoring.models import Question


@dataclass(frozen=True)
class KindFacts:
    """What one question kind decides."""

    label: str | Promise
    """The kind's name in the active language (builder messages)."""
    lists_options: bool
    """The researcher lists the options (yes/no has its own two, a number a
    range)."""
    grid: bool = False
    """Answers are numbers on a grid ``low, low + step, …, high``."""
    ordered: bool = False
    """Answers are ordered levels (a scale): SPSS measure "ordinal"."""
    in_units: bool = False
    """Answers have values: results show a mean in the answer's units and a
    distribution in bins."""
    one_choice: bool = True
    """The answer is one of the question's labelled answers (cross-tabs,
    display logic, covariates)."""
    several: bool = False
    """Several options may be ticked (multiple selections)."""
    fixed_options: tuple[str, ...] = ()
    """The answers of a kind that has its own (yes/no: answer 1 is "yes" in
    every binary spec)."""
    free_text: bool = False
    """The answer is words typed by the respondent: never protected (no
    mechanism randomizes text, and a sentence can name its writer), never
    driving display logic, a string column in exports."""
    text_limit: int = 0
    """A free-text answer's most characters."""
    takes_other: bool = False
    """An unprotected question of this kind may end with "Other, please
    specify" (one more answer, with a text box)."""


KINDS: dict[str, KindFacts] = {
    Question.Kind.YES_NO: KindFacts(
        gettext_lazy("Yes / no"), lists_options=False, fixed_options=("No", "Yes")
    ),
    Question.Kind.SINGLE_CHOICE: KindFacts(
        gettext_lazy("Single choice"), lists_options=True, takes_other=True
    ),
    Question.Kind.ORDINAL: KindFacts(
        gettext_lazy("Scale"), lists_options=True, ordered=True, in_units=True
    ),
    Question.Kind.NUMERIC: KindFacts(
        gettext_lazy("Number in a range"),
        lists_options=False,
        grid=True,
        in_units=True,
        one_choice=False,
    ),
    Question.Kind.MULTI_SELECT: KindFacts(
        gettext_lazy("Multiple selections"),
        lists_options=True,
        one_choice=False,
        several=True,
        takes_other=True,
    ),
    Question.Kind.SHORT_TEXT: KindFacts(
        gettext_lazy("Open text (one line)"),
        lists_options=False,
        one_choice=False,
        free_text=True,
        text_limit=500,
    ),
    Question.Kind.LONG_TEXT: KindFacts(
        gettext_lazy("Open text (several lines)"),
        lists_options=False,
        one_choice=False,
        free_text=True,
        text_limit=5000,
    ),
}

OTHER_TEXT_LIMIT = 500
"""The most characters of the words beside "Other, please specify"."""


def facts(kind: str) -> KindFacts:
    """The facts of ``kind``; KeyError for a kind that does not exist."""
    return KINDS[kind]


def kinds_where(**wanted: bool) -> tuple[str, ...]:
    """The kinds whose facts have the given values, e.g. ``in_units=True``."""
    return tuple(
        kind
        for kind, found in KINDS.items()
        if all(getattr(found, name) == value for name, value in wanted.items())
    )


def kind_groups() -> dict[str, str]:
    """Which kinds show each group of the builder's fields (space-separated, for
    a ``data-kinds`` attribute): the options, the selection limit, the number
    range, and the design of a mechanism that takes one (forced response)."""
    designed = [
        kind
        for kind in KINDS
        if any(family.takes_design for family in registry.for_kind(kind))
    ]
    return {
        "options": " ".join(kinds_where(lists_options=True)),
        "selections": " ".join(kinds_where(several=True)),
        "grid": " ".join(kinds_where(grid=True)),
        "design": " ".join(designed),
        "other": " ".join(kinds_where(takes_other=True)),
        "free_text": " ".join(kinds_where(free_text=True)),
        "randomizable": " ".join(kinds_where(free_text=False)),
    }
