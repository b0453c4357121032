"""Content objects: what a respondent's device is asked, one object per
question and language, each named by its hash.

A content object holds everything the device shows or uses for one question
in one language: the text, the help, the options' labels as read, the
mechanism's compiled spec and the inputs of its protection wording.  It is
made from the survey's own definition (the questions and their
translations, as the answer form reads them), so the answer page and the
independent device cannot disagree on what a question is.

Its hash is SHA-256 over the canonical JSON of the object::

    sha256(json.dumps(obj, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")).hexdigest()

so any change to a word, a translation, an option or the spec gives another
hash.  The device is given the canonical text itself (``ContentObject.text``)
and hashes those bytes before it parses them: it never re-serialises, since
JavaScript prints floats differently from Python (``1.0`` is ``1`` there).
The survey itself is not in the object: the same questions served under
another survey's address hash the same, so the device's memory of what it
answered follows the content, not the address.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.utils import translation

from surveys.authoring import piping, translations
from surveys.authoring.kinds import OTHER_TEXT_LIMIT, facts
from surveys.authoring.models import Question, Survey
from surveys.collection.plain_fields import typed_limits
from surveys.collection.questions import (
    grid,
    most_selections,
    other_value,
    plain_decimal,
    shown_choices,
)

VERSION = 1


def canonical_json(value: Any) -> bytes:
    """The canonical bytes of a JSON-able ``value``: sorted keys, no spaces,
    UTF-8 (not ASCII-escaped)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def content_hash(value: Any) -> str:
    """SHA-256 hex of ``canonical_json(value)``."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


@dataclass(frozen=True)
class ContentObject:
    """One question in one language, and its hash."""

    question: int
    language: str
    body: dict[str, Any]

    @property
    def text(self) -> str:
        """The canonical JSON text (what the hash is over)."""
        return canonical_json(self.body).decode("utf-8")

    @property
    def hash(self) -> str:
        return content_hash(self.body)

    def as_json(self) -> dict[str, str]:
        """``{"hash": …, "text": …}``, as the device receives it: it hashes
        ``text``'s UTF-8 bytes, compares, then parses."""
        return {"hash": self.hash, "text": self.text}


def _wording(question: Question) -> dict[str, Any] | None:
    """The inputs the device words a protected question's protection from:
    the ε the spec declares and the design (the figures come from the spec's
    weights on the device); ``None`` for an unprotected question."""
    if not question.is_private:
        return None
    spec = question.spec or {}
    return {
        "epsilon": spec.get("epsilon"),
        "design": (question.design or {}).get("type", ""),
    }


def _range(question: Question) -> list[str] | None:
    """A numeric question's (low, high, step) as exact decimal strings."""
    if not facts(question.kind).grid:
        return None
    bounds = grid(question)
    return None if bounds is None else [plain_decimal(b) for b in bounds]


def _typed_words(question: Question) -> dict[str, Any]:
    """What an unprotected question takes as typed words, or repeats, only
    where it does: ``typed`` (a free-text answer: its most characters and
    whether it may hold several lines), ``other`` ("Other, please specify":
    the value of "Other" and the most characters of the words beside it) and
    ``pipes`` (its text's earlier answers).  A protected question has none,
    so its content object, and the device's memory keyed on it, is the same
    as before these keys existed."""
    found: dict[str, Any] = {}
    if (limits := typed_limits(question)) is not None:
        found["typed"] = {"most": limits[0], "lines": limits[1]}
    if (other := other_value(question)) is not None:
        found["other"] = {"value": other, "most": OTHER_TEXT_LIMIT}
    if not question.is_private and (pipes := _pipes(question)):
        found["pipes"] = pipes
    return found


def _pipes(question: Question) -> dict[str, int]:
    """Each ``{{qN}}`` of an unprotected question's text: N → the id of the
    question at position N, whose answer the device fills in
    (``surveys.authoring.piping``)."""
    wanted = set(piping.numbers(question.text))
    if not wanted:
        return {}
    found = Question.objects.filter(
        survey_id=question.survey_id, position__in=wanted
    ).values_list("position", "pk")
    return {str(position): pk for position, pk in found}


def question_content(question: Question, language: str) -> dict[str, Any]:
    """The content object of a loaded (and localized) ``question`` read in
    ``language``: a yes/no question's "Yes" and "No" are the site's words in
    that language."""
    with translation.override(language):
        options = [label for _, label in shown_choices(question)]
    return {
        "v": VERSION,
        "question": question.pk,
        "language": language,
        "kind": question.kind,
        "text": question.text,
        "help": question.help_text,
        "section": question.section_title,
        "options": options,
        "values": [value for value, _ in shown_choices(question)],
        "range": _range(question),
        "max_selections": most_selections(question),
        "optional": question.optional,
        "show_if": question.show_if,
        "protected": question.is_private,
        "spec": question.spec if question.is_private else None,
        "spec_revision": question.spec_revision if question.is_private else None,
        "wording": _wording(question),
        **_typed_words(question),
    }


def survey_content(survey: Survey, language: str | None = None) -> list[ContentObject]:
    """Every question of ``survey`` in ``language`` (the source language if
    the survey is not offered in it), in order.  ``survey`` is reloaded, so
    the caller's instance is never localized."""
    fresh = Survey.objects.get(pk=survey.pk)
    localized = translations.localize_survey(fresh, language)
    return [
        ContentObject(q.pk, localized.language, question_content(q, localized.language))
        for q in fresh.questions.all()
    ]


def survey_content_all(survey: Survey) -> dict[str, list[ContentObject]]:
    """``survey_content`` in every language the survey is offered in."""
    fresh = Survey.objects.get(pk=survey.pk)
    offered = translations.offered_languages(fresh, list(fresh.questions.all()))
    return {language: survey_content(survey, language) for language in offered}
