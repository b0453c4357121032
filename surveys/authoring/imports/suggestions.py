"""Which imported questions could be protected, and how: the builder's own
recommendation, applied to each question as it was imported.

Every imported question arrives unprotected.  For each one still
unprotected, this says what protecting it would mean with the builder's
defaults: the recommended mechanism for its kind and answers at the default
ε (``mechanisms.build`` with no mechanism chosen, the same choice the
question form's "Recommended" makes) and the margin of error at the survey's
planned respondents (``previews.preview_mechanism``).  A question that decides
whether others are shown must stay unprotected for that display logic to
work (``display_logic``), and so must one whose answer a later question's
text repeats (``piping``); the suggestion says so instead.  Deniable cannot
know which questions are sensitive: the researcher chooses, and the page
shows what protecting all of them would cost against the survey's budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext

from surveys.authoring import mechanisms, piping, previews
from surveys.authoring.kinds import facts
from surveys.authoring.mechanisms import DEFAULT_EPSILON, PrivacyConfig
from surveys.authoring.models import Question, Survey


@dataclass(frozen=True)
class Suggestion:
    """One question and what protecting it would take.

    ``preview`` is None when it should stay unprotected or cannot be
    protected as it is; ``reason`` then says why.
    """

    question: Question
    preview: previews.Preview | None
    reason: str = ""


@dataclass(frozen=True)
class Suggestions:
    """The suggestions of a survey's unprotected questions, and the total ε
    (display string) if every protectable one were protected as suggested."""

    rows: list[Suggestion]
    total_display: str
    within_budget: bool


def _config(question: Question) -> PrivacyConfig:
    return PrivacyConfig(
        kind=question.kind,
        is_private=True,
        options=tuple(question.options or ()),
        epsilon=DEFAULT_EPSILON,
        low=question.numeric_low,
        high=question.numeric_high,
        step=question.numeric_step,
        max_selections=question.max_selections,
    )


def suggest(survey: Survey) -> Suggestions:
    """What the builder suggests for each unprotected question of ``survey``."""
    questions = list(survey.questions.filter(is_private=False).order_by("position"))
    drivers = {
        (q.show_if or {}).get("question")
        for q in survey.questions.exclude(show_if=None)
    }
    piped = {n for q in survey.questions.all() for n in piping.numbers(q.text)}
    rows, exact = [], []
    for question in questions:
        if question.pk in drivers:
            rows.append(
                Suggestion(
                    question,
                    None,
                    gettext(
                        "Keep it unprotected: it decides which questions are "
                        "shown, and only an unprotected answer may."
                    ),
                )
            )
            continue
        if question.position in piped:
            rows.append(
                Suggestion(
                    question,
                    None,
                    gettext(
                        "Keep it unprotected: a later question's text repeats "
                        "its answer, and only an unprotected answer may be "
                        "repeated (remove the pipe first to protect it)."
                    ),
                )
            )
            continue
        if facts(question.kind).free_text:
            rows.append(
                Suggestion(
                    question,
                    None,
                    gettext(
                        "Stays unprotected: typed words are never randomized, "
                        "and they can identify the person who wrote them."
                    ),
                )
            )
            continue
        try:
            mechanism = mechanisms.build(_config(question))
        except mechanisms.MechanismError as error:
            rows.append(Suggestion(question, None, str(error)))
            continue
        preview = previews.preview_mechanism(mechanism, n=survey.planned_respondents)
        exact.append(mechanism.epsilon_exact)
        rows.append(Suggestion(question, preview))
    protected = [
        q.compiled_mechanism().epsilon_exact
        for q in survey.questions.filter(is_private=True)
        if q.compiled_mechanism() is not None
    ]
    _, display, total = previews.total_epsilon([*exact, *protected])
    return Suggestions(rows, display, total <= Decimal(survey.epsilon_budget))
