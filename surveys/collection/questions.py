"""How a question's answers are numbered: the value ldp randomizes is an index.

A yes/no question's value is 1 for "Yes" and 0 for "No" (a forced "yes" in the
forced-response design is 1).  Choice kinds use the position in
``Question.options``.
"""

from __future__ import annotations

from typing import Any

from surveys.authoring.models import Question

YES, NO = 1, 0
CHOICE_KINDS = {
    Question.Kind.YES_NO,
    Question.Kind.SINGLE_CHOICE,
    Question.Kind.ORDINAL,
}
# Kinds the browser can randomize today: one answer index in [0, k).
PRIVATE_KINDS = CHOICE_KINDS


def option_label(option: Any) -> str:
    """An option's label, whether stored as a string or as {"label": ...}."""
    if isinstance(option, dict):
        return str(option.get("label", ""))
    return str(option)


def answer_choices(question: Question) -> list[tuple[int, str]]:
    """(value, label) pairs in the order they are shown."""
    if question.kind == Question.Kind.YES_NO:
        return [(YES, "Yes"), (NO, "No")]
    return [(index, option_label(o)) for index, o in enumerate(question.options)]


def value_label(question: Question, value: int) -> str:
    """The label of one answer value."""
    return dict(answer_choices(question)).get(value, str(value))
