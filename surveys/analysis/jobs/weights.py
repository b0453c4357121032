"""Weighted estimates: calibrate to population margins, re-estimate every question.

The researcher gives population shares for one or more unprotected choice
questions.  Weights come from those answers only (their true values are known):
post-stratification for one question, raking for several (``ldp.post_stratify``,
``ldp.rake``; docs/maths.md 6.6).  Every protected question is then
re-estimated with the weights (``ldp.weighted_estimate`` for shares,
``ldp.weighted_mean`` for scales and numbers), next to the same estimator with
equal weights, with Kish's design effect and effective sample size.  Like
cross-tabs the job reads only reports up to the results snapshot, and an
identical request reuses it until the snapshot or the questions change.  What
is stored is the table: no weight of any respondent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.utils.translation import gettext_noop

import ldp
from surveys.analysis.jobs.weighted_rows import (
    LEVEL,
    WeightedInputs,
    WeightingRefused,
    question_entry,
)
from surveys.analysis.models import AnalysisJob, job_find_or_create
from surveys.analysis.results import selectors
from surveys.authoring.models import Question, Survey
from surveys.collection import report_codec
from surveys.collection.models import PlainAnswer, Report
from surveys.collection.questions import CHOICE_KINDS, answer_choices

SUM_TOLERANCE = 0.5  # percentage points: shares typed to one decimal add up
CHUNK = 5000
Progress = Callable[[float], None]


def margin_candidates(survey: Survey) -> list[Question]:
    """Unprotected questions with one answer from a list."""
    return [
        q
        for q in selectors.survey_questions(survey)
        if not q.is_private and q.kind in CHOICE_KINDS
    ]


def answer_labels(question: Question) -> list[str]:
    """The question's answers in the order margins are typed."""
    return [label for _, label in answer_choices(question)]


def parse_margin(question: Question, text: str) -> list[float] | None:
    """Percentages separated by commas, one per answer in order → shares
    (blank → None: the question is not a margin)."""
    text = text.strip()
    if not text:
        return None
    labels = answer_labels(question)
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise WeightingRefused(
            gettext_noop(
                "Population shares for “%(text)s”: “%(given)s” is not a list of "
                "percentages separated by commas."
            ),
            text=question.text,
            given=text,
        ) from None
    if len(values) != len(labels):
        raise WeightingRefused(
            gettext_noop(
                "“%(text)s” has %(k)s answers (%(labels)s): give %(k)s "
                "percentages, not %(given)s."
            ),
            text=question.text,
            k=len(labels),
            labels=", ".join(labels),
            given=len(values),
        )
    if any(not 0 <= v <= 100 for v in values):
        raise WeightingRefused(
            gettext_noop(
                "Population shares for “%(text)s”: each is a percentage from 0 to 100."
            ),
            text=question.text,
        )
    if abs(sum(values) - 100) > SUM_TOLERANCE:
        raise WeightingRefused(
            gettext_noop(
                "Population shares for “%(text)s” add up to %(total)s%%, not 100%%."
            ),
            text=question.text,
            total=float(sum(values)),
        )
    return [v / 100 for v in values]


def weighted_request(
    *, survey: Survey, margins: dict[int, list[float]]
) -> tuple[AnalysisJob, bool]:
    """(the weighted-estimates job for these margins on the current results,
    created).  Refused, storing nothing, without a margin, or for a question
    that is protected or not a one-answer unprotected question of the survey."""
    if not margins:
        raise WeightingRefused(
            gettext_noop(
                "Give population shares for at least one unprotected question."
            )
        )
    candidates = {q.pk: q for q in margin_candidates(survey)}
    for pk, shares in margins.items():
        question = candidates.get(pk)
        if question is None:
            raise WeightingRefused(
                gettext_noop(
                    "Margins can only be given for unprotected questions of this "
                    "survey with one answer from a list: weights must come from "
                    "answers known in the clear."
                )
            )
        if len(shares) != len(answer_labels(question)):
            raise WeightingRefused(
                gettext_noop("“%(text)s” has %(k)s answers."),
                text=question.text,
                k=len(answer_labels(question)),
            )
        if abs(sum(shares) - 1) > SUM_TOLERANCE / 100:
            raise WeightingRefused(
                gettext_noop(
                    "Population shares for “%(text)s” add up to %(total)s%%, not 100%%."
                ),
                text=question.text,
                total=float(sum(shares) * 100),
            )
    snapshot = selectors.latest_snapshot(survey_id=survey.pk)
    params = {
        "margins": {str(pk): shares for pk, shares in sorted(margins.items())},
        "definition": selectors.survey_definition(selectors.survey_questions(survey)),
    }
    return job_find_or_create(
        {
            "survey": survey,
            "kind": AnalysisJob.Kind.WEIGHTED,
            "params": params,
            "watermark": snapshot.watermark if snapshot is not None else 0,
        }
    )


def respondents_up_to(survey: Survey, upto: int) -> list[int]:
    """Submissions (not tests) with a report ``id <= upto``, in id order."""
    rows = (
        Report.objects.filter(survey=survey, id__lte=upto)
        .values_list("submission_id", flat=True)
        .distinct()
        .order_by("submission_id")
    )
    return list(rows.iterator(chunk_size=CHUNK))


def _fit(
    variables: dict[str, list[str]],
    targets: dict[str, dict[str, float]],
    counts: np.ndarray,
) -> ldp.CalibrationWeights:
    """Post-stratification on one margin, raking on several (``ldp``), of
    units standing for ``counts`` respondents each (their base weights); a
    fit that cannot be made is refused with the reason."""
    try:
        if len(variables) == 1:
            ((name, values),) = variables.items()
            return ldp.post_stratify(values, targets[name], counts)
        return ldp.rake(variables, targets, counts)
    except ldp.CalibrationError as error:
        raise WeightingRefused(
            gettext_noop("Raking did not converge: %(error)s."), error=str(error)
        ) from None
    except ValueError as error:
        raise WeightingRefused(
            gettext_noop("The weights cannot be computed: %(error)s."),
            error=str(error),
        ) from None


@dataclass(frozen=True)
class Calibration:
    """Weights of units (respondents, or patterns of answers standing for
    ``counts`` respondents each): ``weights[i]`` is the weight of each
    respondent of unit ``i``, mean 1 over the respondents."""

    kept: list[Any]  # the units weighted
    counts: np.ndarray  # respondents per kept unit
    weights: np.ndarray  # each respondent's weight, per kept unit
    fit: ldp.CalibrationWeights
    margins: list[dict[str, Any]]  # the margins table
    dropped: int  # respondents lacking a margin answer
    # Post-stratification: each kept unit's cell (the strata of the
    # variance, ``ldp.weighted_estimate``); None for raking.
    cells: Any = None

    def summary(self) -> dict[str, Any]:
        """Kish's design effect and effective sample size over respondents
        (``n Σw²/(Σw)²``), and the range of their weights."""
        n = float(self.counts.sum())
        squares = float(self.counts @ (self.weights**2))
        deff = n * squares / float(self.counts @ self.weights) ** 2
        return {
            "method": self.fit.method,
            "iterations": self.fit.iterations,
            "max_margin_error": self.fit.max_margin_error,
            "design_effect": deff,
            "effective_sample_size": n / deff,
            "min_weight": float(self.weights.min()),
            "max_weight": float(self.weights.max()),
        }


def calibrate_units(
    survey: Survey,
    params: dict[str, Any],
    units: list[tuple[Any, dict[int, Any], int]],
) -> Calibration:
    """Weights to the margins of ``params`` for ``units``: (unit, its answer
    to each margin question it answered, respondents it stands for).
    Post-stratification and raking weigh alike every respondent with the same
    answers, so a unit of ``c`` respondents with base weight ``c`` gets
    ``c`` times each one's weight."""
    questions = {q.pk: q for q in margin_candidates(survey)}
    margins = {int(pk): shares for pk, shares in params["margins"].items()}
    if any(pk not in questions for pk in margins):
        raise WeightingRefused(
            gettext_noop("A margin question has been removed or protected.")
        )
    names = {pk: dict(answer_choices(questions[pk])) for pk in margins}
    kept = [
        (unit, answers, count)
        for unit, answers, count in units
        if count > 0 and all(pk in answers for pk in margins)
    ]
    counts = np.asarray([count for _, _, count in kept], dtype=float)
    everyone = sum(count for _, _, count in units)
    if counts.sum() < 2:
        raise WeightingRefused(
            gettext_noop(
                "Only %(n)s respondent(s) in the current results answered every "
                "margin question: nothing to weight yet."
            ),
            n=int(counts.sum()),
        )
    targets: dict[str, dict[str, float]] = {}
    variables: dict[str, list[str]] = {}
    table = []
    for pk, shares in margins.items():
        question = questions[pk]
        labels = answer_labels(question)
        values = [
            names[pk].get(int(answers[pk]), str(answers[pk])) for _, answers, _ in kept
        ]
        for name, share in zip(labels, shares, strict=True):
            if share > 0 and name not in values:
                raise WeightingRefused(
                    gettext_noop(
                        "Empty cell: no respondent answered “%(answer)s” to "
                        "“%(text)s”, whose population share is %(share)s%%. Merge "
                        "it with a neighbouring answer (add their shares) or give "
                        "it 0%%."
                    ),
                    answer=name,
                    text=question.text,
                    share=float(share * 100),
                )
        targets[question.text] = dict(zip(labels, shares, strict=True))
        variables[question.text] = values
        table.append(
            {
                "text": question.text,
                "kind": question.kind,
                "labels": labels,
                "targets": shares,
            }
        )
    fit = _fit(variables, targets, counts)
    weights = fit.weights / counts
    weights *= counts.sum() / float(counts @ weights)
    for row, values in zip(table, variables.values(), strict=True):
        array = np.asarray(values)
        row["sample"] = [
            float(counts[array == name].sum() / counts.sum()) for name in row["labels"]
        ]
        mass = counts * weights
        row["weighted"] = [
            float(mass[array == name].sum() / mass.sum()) for name in row["labels"]
        ]
    return Calibration(
        [unit for unit, _, _ in kept],
        counts,
        weights,
        fit,
        table,
        int(everyone - counts.sum()),
        fit.cells,
    )


def calibrate(survey: Survey, params: dict[str, Any], *, upto: int) -> Calibration:
    """:func:`calibrate_units` of the respondents with a report ``id <= upto``,
    each its own unit (read from the stored answers)."""
    questions = {q.pk: q for q in margin_candidates(survey)}
    everyone = respondents_up_to(survey, upto)
    margins = [int(pk) for pk in params["margins"] if int(pk) in questions]
    present = set(everyone)
    answers: dict[int, dict[int, Any]] = {s: {} for s in everyone}
    for pk in margins:
        found = PlainAnswer.objects.filter(question_id=pk).values_list(
            "submission_id", "value"
        )
        for s, v in found.iterator(chunk_size=CHUNK):
            if s in present:
                answers[s][pk] = v
    return calibrate_units(survey, params, [(s, answers[s], 1) for s in everyone])


def question_rows(
    question: Question,
    payloads: list[Any],
    weights: np.ndarray,
    strata: list[str] | None = None,
) -> dict[str, Any]:
    """One protected question: unweighted and weighted estimates, by answer
    (shares) or as a mean (scales and numbers), from its reports; ``strata``,
    each report's post-stratification cell, gives the post-stratified
    variance."""
    mechanism = question.compiled_mechanism()
    return question_entry(
        question,
        WeightedInputs(
            n=len(payloads),
            weighted=bool(len(payloads)) and bool(weights.sum() > 0),
            plain=lambda: mechanism.aggregate(payloads),
            shares=lambda: ldp.weighted_estimate(mechanism, payloads, weights, strata),
            mean=lambda: ldp.weighted_mean(mechanism, payloads, weights, strata),
            mean_design_effect=lambda: ldp.kish_design_effect(weights),
        ),
    )


def weighted_result(
    survey: Survey, params: dict[str, Any], *, upto: int, progress: Progress
) -> dict[str, Any]:
    """Compute the weights and every protected question's weighted estimates
    from the stored reports; the stored table (JSON), or WeightingRefused
    saying why not (``weights_grouped`` computes it from a snapshot's pattern
    tallies instead, when it holds them)."""
    calibration = calibrate(survey, params, upto=upto)
    progress(0.4)
    position = {s: i for i, s in enumerate(calibration.kept)}
    questions = [
        q for q in selectors.survey_questions(survey) if q.compiled_mechanism()
    ]
    entries = []
    for done, question in enumerate(questions, start=1):
        rows = Report.objects.filter(
            survey_id=question.survey_id,
            question=question,
            spec_revision=question.spec_revision,
            id__lte=upto,
        ).values_list("submission_id", "value", "bits")
        stored = report_codec.decode_rows(question.spec, rows.iterator(CHUNK))
        pairs = [(s, p) for s, p in stored if s in position]
        weights = np.asarray([calibration.weights[position[s]] for s, _ in pairs])
        strata = (
            None
            if calibration.cells is None
            else [str(calibration.cells[position[s]]) for s, _ in pairs]
        )
        entries.append(question_rows(question, [p for _, p in pairs], weights, strata))
        progress(0.4 + 0.55 * done / len(questions))
    return result_table(calibration, entries)


def result_table(
    calibration: Calibration, entries: list[dict[str, Any]]
) -> dict[str, Any]:
    """The stored table: the weights' summary, the margins and each
    question's rows."""
    return calibration.summary() | {
        "n": int(calibration.counts.sum()),
        "dropped": calibration.dropped,
        "level": LEVEL,
        "margins": calibration.margins,
        "questions": entries,
    }
