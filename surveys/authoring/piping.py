"""Piping: an earlier answer that is not protected, repeated in a later
question's text.

A researcher writes ``{{q3}}`` in a question's text for the respondent's
answer to question 3, numbered as the builder numbers questions (their
``position``).  The respondent's device fills it in as the respondent answers
(``static/js/piping.js``): the option's label, the number, the words typed
(for "Other, please specify": what was typed in its box), several ticked
options as a list; nothing yet shows "…".  It is always set as text, never
as HTML, so an answer cannot inject markup into the page.

What may be piped, and where:

* only an **unprotected** answer, of an **earlier** question: a protected
  question's true answer never leaves the respondent's device and must not
  appear anywhere else on the page either (a page script could read it back
  from the text it was piped into, and the privacy model forbids protected
  answers driving anything);
* only into an **unprotected** question's text: a protected question's text
  is part of the content object the device verifies before it randomizes
  (``surveys.collection.content``), so it is fixed, never filled in.

Moving or deleting questions renumbers them; :func:`renumber` rewrites every
``{{qN}}`` so that it keeps naming the same question, and a question whose
answer is piped cannot be deleted until the pipe is removed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from surveys.authoring.models import Question, Survey

PIPE = re.compile(r"\{\{\s*[qQ]\s*(\d{1,4})\s*\}\}")
# What the page shows before the earlier question has an answer.
EMPTY = "…"
HELP = gettext_lazy(
    "To repeat an earlier answer that is not protected, write {{q3}} for the "
    "answer to question 3 (numbered as in this survey's list of questions). "
    "Only in questions that are not protected, and only from earlier questions "
    "that are not protected."
)
PROTECTED_TARGET = gettext_lazy(
    "This question is protected, so its text cannot repeat an earlier answer "
    "(%(pipe)s): the respondent's device checks a protected question's exact "
    "text before it randomizes the answer, so that text is fixed. Write the "
    "text out in full, or make this question not protected. Nothing was changed."
)
PROTECTED_SOURCE = gettext_lazy(
    "%(pipe)s would repeat the answer to “%(text)s”, which is protected: its "
    "true answer never leaves the respondent's device, and it must not appear "
    "anywhere on the page either. Only answers that are not protected can be "
    "repeated. Nothing was changed."
)


def numbers(text: str) -> list[int]:
    """The question numbers ``text`` pipes, in order of appearance."""
    return [int(match.group(1)) for match in PIPE.finditer(text or "")]


def placeholder(text: str) -> str:
    """``text`` with every pipe shown as :data:`EMPTY` (for messages that
    quote a question before its answer is known)."""
    return PIPE.sub(EMPTY, text or "")


def problems(
    survey: Survey, *, text: str, is_private: bool, position: int | None
) -> list[str]:
    """Why ``text`` may not pipe what it pipes, for a question of ``survey``
    at ``position`` (``None``: a new question, after every other)."""
    found: list[str] = []
    by_number = {q.position: q for q in survey.questions.all()}
    for match in PIPE.finditer(text or ""):
        pipe, number = match.group(0), int(match.group(1))
        source = by_number.get(number)
        if is_private:
            found.append(str(PROTECTED_TARGET) % {"pipe": pipe})
        elif position is not None and number >= position:
            found.append(
                gettext(
                    "%(pipe)s names question %(number)d, which does not come before "
                    "this one: only an earlier answer can be repeated."
                )
                % {"pipe": pipe, "number": number}
            )
        elif source is None:
            found.append(
                gettext(
                    "%(pipe)s names question %(number)d, which this survey does "
                    "not have."
                )
                % {"pipe": pipe, "number": number}
            )
        elif source.is_private:
            found.append(str(PROTECTED_SOURCE) % {"pipe": pipe, "text": source.text})
    return list(dict.fromkeys(found))


def validate(
    survey: Survey, *, text: str, is_private: bool, position: int | None
) -> None:
    """Refuse (ValidationError keyed ``text``) a text that pipes what it may not."""
    if found := problems(survey, text=text, is_private=is_private, position=position):
        raise ValidationError({"text": found})


def check_survey(survey: Survey) -> list[str]:
    """Every pipe of ``survey`` still allowed (after a move or an edit)."""
    found = []
    for question in survey.questions.order_by("position"):
        for problem in problems(
            survey,
            text=question.text,
            is_private=question.is_private,
            position=question.position,
        ):
            found.append(
                gettext("“%(text)s”: %(problem)s")
                % {"text": question.text, "problem": problem}
            )
    return found


def require_intact(survey: Survey) -> None:
    """Refuse (ValidationError, to roll back) a change that broke a pipe."""
    if found := check_survey(survey):
        raise ValidationError([*found, gettext("Nothing was changed.")])


def users(question: Question) -> list[Question]:
    """The questions whose text pipes ``question``'s answer."""
    return [
        q
        for q in question.survey.questions.exclude(pk=question.pk)
        if question.position in numbers(q.text)
    ]


def renumbered(text: str, moves: Mapping[int, int]) -> str:
    """``text`` with each ``{{qN}}`` naming ``moves[N]`` (unchanged if absent)."""

    def move(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return f"{{{{q{moves.get(number, number)}}}}}"

    return PIPE.sub(move, text or "")


def renumber(questions: list[Question], moves: Mapping[int, int]) -> None:
    """Rewrite the pipes of ``questions`` (their text in every language) after
    the questions numbered as ``moves``' keys became its values."""
    changed = []
    for question in questions:
        texts = [question.text] + [
            str(words.get("text", ""))
            for words in (question.translations or {}).values()
            if isinstance(words, dict)
        ]
        if not any(PIPE.search(text) for text in texts):
            continue
        question.text = renumbered(question.text, moves)
        for words in (question.translations or {}).values():
            if isinstance(words, dict) and isinstance(words.get("text"), str):
                words["text"] = renumbered(words["text"], moves)
        changed.append(question)
    if changed:
        Question.objects.bulk_update(changed, ["text", "translations"])
