"""ldp's sentences in the reader's language (``ldp.mechanisms.words``).

A mechanism declares what it says as :class:`~ldp.mechanisms.words.Words`: an
English message id and its values.  This module words them: on a page in the
active language (gettext, and numbers in that language's format), in exports
and the API in English (the message id itself, numbers as English writes
them).  Values naming a question's answers (``Answer``, ``Options``,
``GridValue``) are worded by the :class:`Answers` the caller gives: the
respondent's side knows the question's labels; without them an index is shown
as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext

from ldp.mechanisms.words import Answer, GridValue, Number, Options, Percent, Words


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


@dataclass(frozen=True)
class Answers:
    """How a sentence names the question's answers (None: the index itself)."""

    answer: Callable[[int], str] | None = None
    options: Callable[[tuple[int, ...]], str] | None = None
    grid_value: Callable[[int], str] | None = None


def _value(value: Any, answers: Answers) -> Any:
    if isinstance(value, Number):
        if value.decimals is not None:
            return localized_number(f"{value.value:.{value.decimals}f}")
        return localized_number(value.value)
    if isinstance(value, Percent):
        return localized_number(f"{100 * value.share:.1f}") + "%"
    if isinstance(value, Answer):
        return answers.answer(value.index) if answers.answer else str(value.index)
    if isinstance(value, Options):
        if answers.options:
            return answers.options(value.indices)
        return ", ".join(str(i) for i in value.indices)
    if isinstance(value, GridValue):
        if answers.grid_value:
            return answers.grid_value(value.index)
        return str(value.index)
    return value


def shown(words: Words, answers: Answers = Answers()) -> str:
    """``words`` in the active language, for a page."""
    values = {name: _value(value, answers) for name, value in words.values.items()}
    text = gettext(words.message)
    return text % values if values else text


def english(words: Words, answers: Answers = Answers()) -> str:
    """``words`` in English, as exports and the API carry them."""
    with translation.override("en"):
        return shown(words, answers)
