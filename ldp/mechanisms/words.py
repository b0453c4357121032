"""Sentences a mechanism declares for people, as plain message ids.

``ldp`` imports no web framework, so what a mechanism says to researchers and
respondents is declared here as data: a :class:`Words` holds an English
sentence with ``%(name)s`` placeholders (a gettext *message id*) and the values
to put in them.  The values that depend on the question (its answer labels,
its grid) or on the reader's language (numbers, percentages) are markers
(:class:`Options`, :class:`Answer`, :class:`GridValue`, :class:`Number`,
:class:`Percent`) that the reader's side words: the Django project translates
the message with gettext and formats each marker in the active language.

Every message id in ``ldp`` is wrapped in :func:`gettext_noop`, the name GNU
xgettext (and so Django's ``makemessages``) looks for, so the catalogs in
``locale/`` carry its translations; the function itself returns its argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any


def gettext_noop(message: str) -> str:
    """Mark ``message`` for the translation catalogs and return it unchanged.

    Parameters
    ----------
    message : str
        An English sentence, the message id.

    Returns
    -------
    str
        ``message`` itself.

    Examples
    --------
    >>> gettext_noop("Hadamard response")
    'Hadamard response'
    """
    return message


@dataclass(frozen=True)
class Options:
    """The labels of some of the question's options, joined ("none" if empty).

    Attributes
    ----------
    indices : tuple of int
        Option indices in ``[0, k)``.
    """

    indices: tuple[int, ...]


@dataclass(frozen=True)
class Answer:
    """The label of one answer of the question.

    Attributes
    ----------
    index : int
        The answer index in ``[0, k)``.
    """

    index: int


@dataclass(frozen=True)
class GridValue:
    """The value of one point of the question's numeric grid, ``low + i·step``.

    Attributes
    ----------
    index : int
        The grid index ``i`` in ``[0, m)``.
    """

    index: int


@dataclass(frozen=True)
class Number:
    """A number, written in the reader's format.

    Attributes
    ----------
    value : int, float or Decimal
        The number.
    decimals : int or None
        Digits after the decimal point (None: as the number is).
    """

    value: int | float | Decimal
    decimals: int | None = None


@dataclass(frozen=True)
class Percent:
    """A probability written as a percentage with one decimal ("73.1%").

    Attributes
    ----------
    share : float
        A probability in ``[0, 1]``.
    """

    share: float


@dataclass(frozen=True)
class Words:
    """A sentence to translate, and the values of its placeholders.

    Attributes
    ----------
    message : str
        The English message id, with ``%(name)s`` placeholders.
    values : mapping
        Each placeholder's value: a plain value, or a marker the reader's
        side words (:class:`Options`, :class:`Answer`, :class:`GridValue`,
        :class:`Number`, :class:`Percent`).

    Examples
    --------
    >>> Words("the value %(value)s", {"value": GridValue(3)}).message
    'the value %(value)s'
    """

    message: str
    values: Mapping[str, Any] = field(default_factory=dict)


class WordedError(ValueError):
    """A refusal whose reason is a translatable sentence.

    Attributes
    ----------
    words : Words
        The reason, for the reader's language.
    """

    def __init__(self, words: Words) -> None:
        super().__init__(words.message % _english(words.values))
        self.words = words


def _english(values: Mapping[str, Any]) -> dict[str, Any]:
    """Plain values for an English error text (markers as their number)."""
    plain: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, Number):
            plain[name] = value.value
        elif isinstance(value, Percent):
            plain[name] = f"{100 * value.share:.1f}%"
        else:
            plain[name] = value
    return plain
