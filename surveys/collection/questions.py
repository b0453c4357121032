"""How a question's answers are numbered: the value ldp randomizes is an index.

A yes/no question's value is 1 for "Yes" and 0 for "No" (a forced "yes" in the
forced-response design is 1).  Choice kinds use the position in
``Question.options``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext

from ldp.mechanisms import registry
from surveys.authoring.kinds import facts, kinds_where
from surveys.authoring.models import Question

YES, NO = 1, 0
CHOICE_KINDS = set(kinds_where(one_choice=True))
# Kinds the browser can randomize: every kind but free text.  Choice kinds
# send one answer index in [0, k), numeric questions a grid level index,
# multi-select questions a sorted list of option indices.
PRIVATE_KINDS = set(kinds_where(free_text=False))


def option_label(option: Any) -> str:
    """An option's label, whether stored as a string or as {"label": ...}."""
    if isinstance(option, dict):
        return str(option.get("label", ""))
    return str(option)


OTHER_LABEL = "Other"


def other_value(question: Question) -> int | None:
    """The value of "Other, please specify" (``len(options)``), or None."""
    if question.other_option and not question.is_private:
        return len(question.options)
    return None


def answer_choices(question: Question) -> list[tuple[int, str]]:
    """(value, label) pairs in the order they are shown ("Other" last)."""
    if question.kind == Question.Kind.YES_NO:
        return [(YES, "Yes"), (NO, "No")]
    if facts(question.kind).free_text:
        return []
    pairs = [(index, option_label(o)) for index, o in enumerate(question.options)]
    if (other := other_value(question)) is not None:
        pairs.append((other, OTHER_LABEL))
    return pairs


def shown_choices(question: Question) -> list[tuple[int, str]]:
    """(value, label) pairs as a respondent reads them: a yes/no question's
    "Yes" and "No" are the site's own words, in the active language; other
    labels are the question's (translated by the survey's own translations)."""
    if question.kind == Question.Kind.YES_NO:
        return [(YES, gettext("Yes")), (NO, gettext("No"))]
    pairs = answer_choices(question)
    if (other := other_value(question)) is not None:
        pairs[-1] = (other, gettext("Other, please specify"))
    return pairs


def shown_label(question: Question, value: int) -> str:
    """The label of one answer value as a respondent reads it."""
    return dict(shown_choices(question)).get(value, str(value))


def value_label(question: Question, value: int) -> str:
    """The label of one answer value."""
    return dict(answer_choices(question)).get(value, str(value))


def most_selections(question: Question) -> int | None:
    """The most options one respondent may tick (None: no limit).

    The limit the mechanism's reports are built for, if its spec sets one
    (padding-and-sampling's ``ell``); the question's ``max_selections``
    otherwise.
    """
    if not facts(question.kind).several:
        return None
    family = registry.of(question.spec) if question.is_private else None
    if family is not None and (ell := family.selection_limit(question.spec)):
        return ell
    limit = question.max_selections
    return limit if limit and limit < len(question.options) else None


def grid(question: Question) -> tuple[Decimal, Decimal, Decimal] | None:
    """(low, high, step) of a numeric question: the compiled spec's, if any."""
    spec = question.spec or {}
    if question.is_private and all(f in spec for f in ("low", "high", "step")):
        return Decimal(spec["low"]), Decimal(spec["high"]), Decimal(spec["step"])
    if None in (question.numeric_low, question.numeric_high, question.numeric_step):
        return None
    return question.numeric_low, question.numeric_high, question.numeric_step


def plain_decimal(value: Decimal) -> str:
    """A decimal without exponent or trailing zeros: Decimal("40.00") -> "40"."""
    text = format(value.normalize(), "f")
    return "0" if text in {"-0", ""} else text


def grid_value(question: Question, level: int) -> str:
    """The value a grid level index stands for, exactly (low + level·step)."""
    low, _, step = grid(question)
    return plain_decimal(low + level * step)


# Control characters but the line feed and the tab (a long answer's lines).
TEXT_CONTROL = re.compile(r"[\u0000-\u0008\u000b-\u001f\u007f-\u009f]")


def typed_text(value: str, *, lines: bool) -> str:
    """Typed words as stored: line ends as ``\\n``, nothing else changed.

    Raises ValueError for a control character (a line break, too, where the
    answer is one line)."""
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    if TEXT_CONTROL.search(text) or (not lines and "\n" in text):
        raise ValueError("a control character")
    return text
