"""Synthetic pilots: the dashboard a study would produce, before fielding it.

A pilot draws ``n`` simulated respondents whose true answers follow the
researcher's expected shares, randomizes each answer with the question's own
compiled mechanism (ldp's Python reference, ``Mechanism.randomize``, seeded),
aggregates the reports (``Mechanism.aggregate``) and debiases them exactly as
the real results are (``selectors.results_from_tallies``).  Nothing is stored
as a submission or report: the pilot lives in its ``AnalysisJob`` (kind
``pilot``) and is never mixed into real results or exports.  A pilot is found
again for the same n, shares and seed until the survey's definition changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from surveys.analysis import selectors
from surveys.analysis.models import AnalysisJob
from surveys.analysis.results import SurveyResults
from surveys.authoring.models import Survey

PILOT_N_MAX = 100_000
PILOT_SEED = 20_160  # fixed: a pilot is reproducible from its parameters


class PilotRefused(ValueError):
    """The pilot cannot be simulated as asked; the message says why."""


def _true_answers(
    k: int, shares: list[float] | None, n: int, rng: np.random.Generator
) -> np.ndarray:
    """``n`` answers in ``[0, k)`` with the given shares (uniform without)."""
    if shares is None:
        return rng.integers(0, k, size=n)
    if len(shares) != k:
        raise PilotRefused(f"Give {k} shares for a question with {k} answers.")
    p = np.asarray(shares, dtype=float)
    return rng.choice(k, size=n, p=p / p.sum())


def parse_shares(text: str) -> list[float] | None:
    """Percentages separated by commas ("20, 80") → shares; blank → None."""
    text = text.strip()
    if not text:
        return None
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise PilotRefused(
            f"“{text}” is not a list of percentages separated by commas."
        ) from None
    if any(not 0 <= v <= 100 for v in values) or not sum(values) > 0:
        raise PilotRefused("Each share is a percentage from 0 to 100, not all 0.")
    if abs(sum(values) - 100) > 0.5:
        raise PilotRefused(f"The shares add up to {sum(values):g}%, not 100%.")
    return [v / 100 for v in values]


def pilot_request(
    *, survey: Survey, n: int, shares: dict[int, list[float] | None]
) -> tuple[AnalysisJob, bool]:
    """(the pilot job for these parameters under the current definition, created)."""
    if not 1 <= n <= PILOT_N_MAX:
        raise PilotRefused(f"n is {n}; allowed: 1 to {PILOT_N_MAX:,}.")
    questions = selectors.survey_questions(survey)
    private = {q.pk: q for q in questions if q.compiled_mechanism() is not None}
    for pk, given in shares.items():
        mechanism = private[pk].compiled_mechanism() if pk in private else None
        if mechanism is None:
            raise PilotRefused(
                "Give shares only for this survey's protected questions."
            )
        if given is not None and len(given) != mechanism.k:
            raise PilotRefused(
                f"“{private[pk].text}” has {mechanism.k} answers: give "
                f"{mechanism.k} shares."
            )
    params: dict[str, Any] = {
        "n": n,
        "shares": {str(pk): v for pk, v in sorted(shares.items()) if v is not None},
        "seed": PILOT_SEED,
        "definition": selectors.survey_definition(questions),
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
    tallies = {}
    for question in questions:
        mechanism = question.compiled_mechanism()
        if mechanism is None or question.kind == "multi_select":
            continue
        shares = params["shares"].get(str(question.pk))
        values = _true_answers(mechanism.k, shares, params["n"], rng)
        reports = mechanism.randomize(values, rng)
        tallies[(question.pk, question.spec_revision)] = mechanism.aggregate(reports)
    return selectors.results_from_tallies(
        survey=survey, questions=questions, tallies=tallies, refreshed_at=None
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
