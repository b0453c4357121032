"""Display logic: a question shown only for some answers to an earlier one.

``Question.show_if`` is ``{"question": <id>, "any_of": [<answer values>]}``:
the question is shown when the respondent's answer to that earlier question
is one of ``any_of`` (for a multi-select question: when any of them is
ticked), and is hidden otherwise, including when that question was skipped.

Only an **unprotected** question may decide what is shown.  A protected
question's true answer never leaves the respondent's device; if it decided
which questions follow, the server would learn it from which questions were
answered.  An unprotected answer is sent as given anyway, so branching on it
reveals nothing more.  The server checks each submission against the
unprotected answer it received: a hidden question must arrive with nothing at
all (no report, no skip marker), a shown one as usual.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from surveys.authoring.models import Question, Survey

CHOICE_KINDS = (
    Question.Kind.YES_NO,
    Question.Kind.SINGLE_CHOICE,
    Question.Kind.ORDINAL,
    Question.Kind.MULTI_SELECT,
)
PROTECTED_DRIVER = gettext_lazy(
    "“%(text)s” is protected: its true answer never leaves the respondent's "
    "device, and showing or hiding questions after it would reveal that answer "
    "to the server through which questions were answered. Only unprotected "
    "questions can decide what is shown."
)


def _choices(question: Question) -> list[tuple[int, str]]:
    """(value, label) as respondents send them: 1 "Yes" / 0 "No", or the
    option's position (the numbering of ``surveys.collection.questions``)."""
    if question.kind == Question.Kind.YES_NO:
        return [(1, gettext("Yes")), (0, gettext("No"))]
    pairs = [
        (index, str(o.get("label", "")) if isinstance(o, dict) else str(o))
        for index, o in enumerate(question.options or ())
    ]
    if question.other_option and not question.is_private:
        pairs.append((len(pairs), gettext("Other, please specify")))
    return pairs


def drivers(survey: Survey, *, before: int | None) -> list[Question]:
    """Questions that may decide whether a question at ``before`` is shown
    (``None``: a new question, after every existing one)."""
    rows = survey.questions.filter(is_private=False, kind__in=CHOICE_KINDS)
    if before is not None:
        rows = rows.filter(position__lt=before)
    return list(rows.order_by("position"))


def choices_for(survey: Survey, *, before: int | None) -> list[tuple[str, str]]:
    """Form choices ``"<question id>:<value>"`` with readable labels."""
    return [
        (
            f"{driver.pk}:{value}",
            gettext("“%(question)s” is “%(answer)s”")
            % {"question": driver.text, "answer": label},
        )
        for driver in drivers(survey, before=before)
        for value, label in _choices(driver)
    ]


def parse(values: list[str]) -> dict[str, Any] | None:
    """``show_if`` from the form's ticked ``"<id>:<value>"`` boxes (None: none)."""
    if not values:
        return None
    pairs = []
    for value in values:
        pk, _, answer = value.partition(":")
        try:
            pairs.append((int(pk), int(answer)))
        except ValueError:
            raise ValidationError(
                {
                    "show_if": [
                        gettext("“%(value)s” is not a condition offered here.")
                        % {"value": value[:20]}
                    ]
                }
            ) from None
    ids = {pk for pk, _ in pairs}
    if len(ids) > 1:
        raise ValidationError(
            {
                "show_if": [
                    gettext(
                        "Choose answers of one question only: a question is shown "
                        "depending on one earlier question."
                    )
                ]
            }
        )
    return {"question": ids.pop(), "any_of": sorted({a for _, a in pairs})}


def validate(
    survey: Survey, show_if: dict[str, Any] | None, *, position: int | None
) -> None:
    """Refuse a condition this question may not have (ValidationError keyed
    ``show_if``): an unknown, later, protected or non-choice question, or
    answers it does not offer."""
    if show_if is None:
        return
    problem = None
    try:
        driver_id = int(show_if["question"])
        any_of = [int(v) for v in show_if["any_of"]]
    except (KeyError, TypeError, ValueError):
        raise ValidationError(
            {
                "show_if": [
                    gettext("The condition must name a question and its answers.")
                ]
            }
        ) from None
    driver = survey.questions.filter(pk=driver_id).first()
    if driver is None:
        problem = gettext("The condition names a question that is not in this survey.")
    elif driver.is_private:
        problem = str(PROTECTED_DRIVER) % {"text": driver.text}
    elif driver.kind not in CHOICE_KINDS:
        problem = gettext(
            "“%(text)s” is a number question; a condition needs a question "
            "with answer options."
        ) % {"text": driver.text}
    elif position is not None and driver.position >= position:
        problem = gettext(
            "“%(text)s” comes after this question; only an earlier answer "
            "can decide whether it is shown."
        ) % {"text": driver.text}
    elif not any_of:
        problem = gettext("Choose at least one answer that shows this question.")
    else:
        offered = {value for value, _ in _choices(driver)}
        unknown = [v for v in any_of if v not in offered]
        if unknown:
            problem = gettext("“%(text)s” has no answer %(value)s.") % {
                "text": driver.text,
                "value": unknown[0],
            }
    if problem:
        raise ValidationError({"show_if": [problem]})


def dependents(question: Question) -> list[Question]:
    """Questions whose display depends on ``question``."""
    return [
        q
        for q in question.survey.questions.exclude(pk=question.pk).exclude(show_if=None)
        if (q.show_if or {}).get("question") == question.pk
    ]


def check_survey(survey: Survey) -> list[str]:
    """Every condition of the survey still valid (after a move, an edit)."""
    problems = []
    for question in survey.questions.exclude(show_if=None).order_by("position"):
        try:
            validate(survey, question.show_if, position=question.position)
        except ValidationError as error:
            for message in error.message_dict.get("show_if", []):
                problems.append(
                    gettext("“%(text)s”: %(problem)s")
                    % {"text": question.text, "problem": message}
                )
    return problems


def is_shown(show_if: dict[str, Any] | None, answer: Any) -> bool:
    """Whether a question with ``show_if`` is shown, given the unprotected
    ``answer`` to its driver (None: skipped; a list: a multi-select)."""
    if show_if is None:
        return True
    if answer is None:
        return False
    chosen = answer if isinstance(answer, list) else [answer]
    return any(value in show_if["any_of"] for value in chosen)


def describe(show_if: dict[str, Any] | None, survey: Survey) -> str:
    """ "Shown only when “Faculty” is “Arts” or “Science”" ("" if always)."""
    if show_if is None:
        return ""
    driver = survey.questions.filter(pk=show_if.get("question")).first()
    if driver is None:
        return ""
    labels = dict(_choices(driver))
    quoted = [
        gettext("“%(answer)s”") % {"answer": labels.get(v, v)}
        for v in show_if["any_of"]
    ]
    answers = quoted[-1]
    for earlier in reversed(quoted[:-1]):
        answers = gettext("%(first)s or %(rest)s") % {"first": earlier, "rest": answers}
    if driver.kind == Question.Kind.MULTI_SELECT:
        sentence = gettext("Shown only when “%(question)s” includes %(answers)s.")
    else:
        sentence = gettext("Shown only when “%(question)s” is %(answers)s.")
    return sentence % {"question": driver.text, "answers": answers}
