"""Synthetic pilots: the dashboard a study would produce, before fielding it.

A pilot draws ``n`` simulated respondents whose true answers follow the
researcher's expected shares, randomizes each answer with the question's own
compiled mechanism (ldp's Python reference, ``Mechanism.randomize``, seeded),
aggregates the reports (``Mechanism.aggregate``) and debiases them exactly as
the real results are (``selectors.results_from_tallies``).  Nothing is stored
as a submission or report: the pilot lives in its ``AnalysisJob`` (kind
``pilot``) and is never mixed into real results or exports.  A pilot is found
again for the same n, shares and seed until the survey's definition changes.

Multiple-selection questions take one percentage per option, the chance that
a respondent ticks it (independently of the other options; where the question
allows at most ℓ ticks, a simulated respondent who ticked more keeps ℓ of them
at random, so shares above what the cap allows come out lower).  Unprotected
questions are simulated too, sent as given, and summarised as the results page
summarises them; an unprotected number is drawn uniformly from its range.
Display logic is followed: a question shown only for some answers to an earlier
unprotected question is answered only by the simulated respondents whose
simulated answer shows it, so its n (and margin) is what fielding would give.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from django.utils.translation import gettext_noop

from surveys.analysis import wording
from surveys.analysis.models import AnalysisJob
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import SurveyResults
from surveys.authoring import display_logic, kinds
from surveys.authoring.models import Survey
from surveys.collection.questions import answer_choices, most_selections

PILOT_N_MAX = 100_000
PILOT_SEED = 20_160  # fixed: a pilot is reproducible from its parameters


class PilotRefused(wording.Refusal):
    """The pilot cannot be simulated as asked; the message says why."""


def _true_answers(
    k: int, shares: list[float] | None, n: int, rng: np.random.Generator
) -> np.ndarray:
    """``n`` answers in ``[0, k)`` with the given shares (uniform without)."""
    if shares is None:
        return rng.integers(0, k, size=n)
    if len(shares) != k:
        raise PilotRefused(
            gettext_noop("Give %(k)s shares for a question with %(k)s answers."), k=k
        )
    p = np.asarray(shares, dtype=float)
    return rng.choice(k, size=n, p=p / p.sum())


def parse_shares(text: str, independent: bool = False) -> list[float] | None:
    """Percentages separated by commas ("20, 80") → shares; blank → None.

    ``independent``: one chance per option of a multiple-selection question,
    each from 0 to 100, with no total.
    """
    text = text.strip()
    if not text:
        return None
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise PilotRefused(
            gettext_noop(
                "“%(given)s” is not a list of percentages separated by commas."
            ),
            given=text,
        ) from None
    if any(not 0 <= v <= 100 for v in values):
        raise PilotRefused(gettext_noop("Each share is a percentage from 0 to 100."))
    if independent:
        return [v / 100 for v in values]
    if not sum(values) > 0:
        raise PilotRefused(
            gettext_noop("Each share is a percentage from 0 to 100, not all 0.")
        )
    if abs(sum(values) - 100) > 0.5:
        raise PilotRefused(
            gettext_noop("The shares add up to %(total)s%%, not 100%%."),
            total=float(sum(values)),
        )
    return [v / 100 for v in values]


def takes_shares(question) -> bool:
    """Whether the pilot form asks for this question's expected shares: every
    protected question, and unprotected questions with answers to choose."""
    if question.is_private:
        return question.compiled_mechanism() is not None
    kind = kinds.facts(question.kind)
    return not (kind.grid or kind.free_text)


def answer_count(question) -> int:
    """How many shares the question takes (its answers, or levels)."""
    if question.is_private and question.kind != "multi_select":
        return question.compiled_mechanism().k
    return len(answer_choices(question))


def _selections(
    k: int, chances: list[float] | None, cap: int | None, n: int, rng
) -> np.ndarray:
    """An ``(n, k)`` boolean matrix: option v ticked with chance ``chances[v]``
    (one half without), then rows over ``cap`` cut to ``cap`` ticks at random."""
    p = np.full(k, 0.5) if chances is None else np.asarray(chances, dtype=float)
    if len(p) != k:
        raise PilotRefused(
            gettext_noop("Give %(k)s percentages for a question with %(k)s options."),
            k=k,
        )
    matrix = rng.random((n, k)) < p
    if cap is not None:
        for row in np.flatnonzero(matrix.sum(axis=1) > cap):
            ticked = np.flatnonzero(matrix[row])
            matrix[row] = False
            matrix[row, rng.choice(ticked, size=cap, replace=False)] = True
    return matrix


def _plain_values(question, shares, n: int, rng) -> list[Any]:
    """``n`` simulated answers sent as given, one per respondent, as sent (a
    list of values for a multiple-selection question; typed words are
    tallied as "answered", so a simulated one is only that)."""
    if kinds.facts(question.kind).free_text:
        return [True] * n
    if kinds.facts(question.kind).grid:
        low, high, step = (
            question.numeric_low,
            question.numeric_high,
            question.numeric_step,
        )
        levels = int((high - low) / step) + 1
        drawn = rng.integers(0, levels, size=n).tolist()
        return [float(low + step * level) for level in drawn]
    values = [value for value, _ in answer_choices(question)]
    if kinds.facts(question.kind).several:
        matrix = _selections(len(values), shares, most_selections(question), n, rng)
        return [[values[i] for i in np.flatnonzero(row)] for row in matrix]
    return [values[index] for index in _true_answers(len(values), shares, n, rng)]


def _counted(answers: list[Any]) -> list[tuple[Any, int]]:
    """(value, count) pairs of the answers, in the order of the values."""
    counts = Counter(tuple(a) if isinstance(a, list) else a for a in answers)
    return [
        (list(value) if isinstance(value, tuple) else value, count)
        for value, count in sorted(counts.items())
    ]


def _shown(question, answers: dict[int, list[Any]], n: int) -> np.ndarray:
    """Which of the ``n`` simulated respondents see ``question``: all of them,
    or, under display logic, those whose simulated answer to its (unprotected)
    driver shows it; a respondent who was not shown the driver is not shown
    the question either (``display_logic.is_shown``)."""
    if question.show_if is None:
        return np.ones(n, dtype=bool)
    driver = answers.get(question.show_if.get("question"), [None] * n)
    return np.array(
        [display_logic.is_shown(question.show_if, answer) for answer in driver],
        dtype=bool,
    )


def pilot_request(
    *, survey: Survey, n: int, shares: dict[int, list[float] | None]
) -> tuple[AnalysisJob, bool]:
    """(the pilot job for these parameters under the current definition, created)."""
    if not 1 <= n <= PILOT_N_MAX:
        raise PilotRefused(
            gettext_noop(
                "n is “%(value)s”; allowed: a whole number from 1 to %(max)s."
            ),
            value=str(n),
            max=PILOT_N_MAX,
        )
    questions = selectors.survey_questions(survey)
    asked = {q.pk: q for q in questions if takes_shares(q)}
    for pk, given in shares.items():
        if pk not in asked:
            raise PilotRefused(
                gettext_noop(
                    "Give shares only for this survey's questions with answers to "
                    "choose from."
                )
            )
        count = answer_count(asked[pk])
        if given is not None and len(given) != count:
            raise PilotRefused(
                gettext_noop("“%(text)s” has %(k)s answers: give %(k)s shares."),
                text=asked[pk].text,
                k=count,
            )
    params: dict[str, Any] = {
        "n": n,
        "shares": {str(pk): v for pk, v in sorted(shares.items()) if v is not None},
        "seed": PILOT_SEED,
        "definition": selectors.survey_definition(questions),
        # Display logic decides who answers what: a change makes a new pilot.
        "logic": {str(q.pk): q.show_if for q in questions if q.show_if},
    }
    lookup = {
        "survey": survey,
        "kind": AnalysisJob.Kind.PILOT,
        "params": params,
        "watermark": 0,
    }
    job = AnalysisJob.objects.filter(**lookup).first()
    if job is not None:
        return job, False
    return AnalysisJob.objects.create(**lookup), True


def pilot_results(survey: Survey, params: dict[str, Any]) -> SurveyResults:
    """Simulate the pilot ``params`` describe and debias it like real results."""
    rng = np.random.default_rng(params["seed"])
    questions = selectors.survey_questions(survey)
    tallies, plain = {}, {}
    n = params["n"]
    # Each unprotected answer per simulated respondent (None: not shown), for
    # the display logic of the questions after it.
    answers: dict[int, list[Any]] = {}
    for question in questions:
        shares = params["shares"].get(str(question.pk))
        shown = _shown(question, answers, n)
        if not question.is_private:
            drawn = _plain_values(question, shares, n, rng)
            answers[question.pk] = [
                answer if seen else None
                for answer, seen in zip(drawn, shown, strict=True)
            ]
            plain[question.pk] = _counted(
                [answer for answer, seen in zip(drawn, shown, strict=True) if seen]
            )
            continue
        mechanism = question.compiled_mechanism()
        if mechanism is None:
            continue
        if kinds.facts(question.kind).several:
            values = _selections(
                len(question.options), shares, mechanism.max_selections, n, rng
            )
        else:
            values = _true_answers(mechanism.k, shares, n, rng)
        if not shown.any():
            continue  # nobody was shown it: no reports, as in the real results
        reports = mechanism.randomize(values[shown], rng)
        tallies[(question.pk, question.spec_revision)] = mechanism.aggregate(reports)
    return selectors.results_from_tallies(
        survey=survey,
        questions=questions,
        tallies=tallies,
        refreshed_at=None,
        plain_answers=plain,
    )


def latest_pilot(survey: Survey) -> AnalysisJob | None:
    """The newest pilot of the survey under its current definition."""
    definition = selectors.survey_definition(selectors.survey_questions(survey))
    return (
        AnalysisJob.objects.filter(
            survey=survey,
            kind=AnalysisJob.Kind.PILOT,
            params__definition=definition,
        )
        .order_by("-id")
        .first()
    )
