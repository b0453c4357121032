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
from typing import Any

import numpy as np
from django.utils.translation import gettext_noop

import ldp
from ldp.mechanisms.oracle import SupportMechanism
from surveys.analysis import wording
from surveys.analysis.models import AnalysisJob, job_find_or_create
from surveys.analysis.results import selectors
from surveys.analysis.results.estimates import labels_for
from surveys.authoring import kinds
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.models import Question, Survey
from surveys.collection import report_codec
from surveys.collection.models import PlainAnswer, Report
from surveys.collection.questions import CHOICE_KINDS, answer_choices

LEVEL = 0.95
SUM_TOLERANCE = 0.5  # percentage points: shares typed to one decimal add up
CHUNK = 5000
Progress = Callable[[float], None]


class WeightingRefused(wording.Refusal):
    """The weights cannot be computed as asked; the message says why."""


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


def _answers_by_respondent(question: Question, everyone: list[int]) -> dict[int, str]:
    """Submission id → the label of its answer to a margin question, for the
    respondents in ``everyone`` who answered it."""
    present = set(everyone)
    names = dict(answer_choices(question))
    found = PlainAnswer.objects.filter(question_id=question.pk).values_list(
        "submission_id", "value"
    )
    return {
        s: names.get(int(v), str(v))
        for s, v in found.iterator(chunk_size=CHUNK)
        if s in present
    }


def _fit(
    variables: dict[str, list[str]], targets: dict[str, dict[str, float]]
) -> ldp.CalibrationWeights:
    """Post-stratification on one margin, raking on several (``ldp``); a fit
    that cannot be made is refused with the reason."""
    try:
        if len(variables) == 1:
            ((name, values),) = variables.items()
            return ldp.post_stratify(values, targets[name])
        return ldp.rake(variables, targets)
    except ldp.CalibrationError as error:
        raise WeightingRefused(
            gettext_noop("Raking did not converge: %(error)s."), error=str(error)
        ) from None
    except ValueError as error:
        raise WeightingRefused(
            gettext_noop("The weights cannot be computed: %(error)s."),
            error=str(error),
        ) from None


def calibrate(
    survey: Survey, params: dict[str, Any], *, upto: int
) -> tuple[list[int], ldp.CalibrationWeights, list[dict[str, Any]], int]:
    """(respondents weighted, their weights, the margins table, respondents
    dropped for lacking a margin answer)."""
    questions = {q.pk: q for q in margin_candidates(survey)}
    margins = {int(pk): shares for pk, shares in params["margins"].items()}
    if any(pk not in questions for pk in margins):
        raise WeightingRefused(
            gettext_noop("A margin question has been removed or protected.")
        )
    everyone = respondents_up_to(survey, upto)
    labels = {pk: _answers_by_respondent(questions[pk], everyone) for pk in margins}
    kept = [s for s in everyone if all(s in labels[pk] for pk in margins)]
    if len(kept) < 2:
        raise WeightingRefused(
            gettext_noop(
                "Only %(n)s respondent(s) in the current results answered every "
                "margin question: nothing to weight yet."
            ),
            n=len(kept),
        )
    targets: dict[str, dict[str, float]] = {}
    variables: dict[str, list[str]] = {}
    table = []
    for pk, shares in margins.items():
        question = questions[pk]
        names = answer_labels(question)
        values = [labels[pk][s] for s in kept]
        for name, share in zip(names, shares, strict=True):
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
        targets[question.text] = dict(zip(names, shares, strict=True))
        variables[question.text] = values
        table.append(
            {
                "text": question.text,
                "kind": question.kind,
                "labels": names,
                "targets": shares,
            }
        )
    fit = _fit(variables, targets)
    w = fit.weights
    for row, values in zip(table, variables.values(), strict=True):
        array = np.asarray(values)
        row["sample"] = [float(np.mean(array == name)) for name in row["labels"]]
        row["weighted"] = [
            float(w[array == name].sum() / w.sum()) for name in row["labels"]
        ]
    return kept, fit, table, len(everyone) - len(kept)


def _interval(estimate: Any) -> tuple[Any, Any]:
    interval = estimate.confidence_interval(LEVEL)
    return interval.low, interval.high


def _mean_label(question: Question, mechanism: ldp.Mechanism) -> wording.Note:
    """The mean's label, saying how an ordinal scale is numbered (a note: the
    page words it for its reader, the CSV file in English)."""
    if not kinds.facts(question.kind).ordered:
        return wording.sentence(gettext_noop("Mean"))
    labels = labels_for(question, mechanism)
    return wording.sentence(
        gettext_noop("Mean on the scale 0 (%(lowest)s) to %(top)s (%(highest)s)"),
        lowest=labels[0],
        top=len(labels) - 1,
        highest=labels[-1],
    )


def question_rows(
    question: Question,
    payloads: list[Any],
    weights: np.ndarray,
    strata: list[str] | None = None,
) -> dict[str, Any]:
    """One protected question: unweighted and weighted estimates, by answer
    (shares) or as a mean (scales and numbers); ``strata``, each report's
    post-stratification cell, gives the post-stratified variance."""
    mechanism = question.compiled_mechanism()
    if mechanism is None:
        raise WeightingRefused(
            gettext_noop("“%(text)s” is no longer protected."), text=question.text
        )
    entry: dict[str, Any] = {
        "text": question.text,
        "kind": question.kind,
        "mechanism_label": mechanism_label(mechanism.name),
        "epsilon": float(mechanism.epsilon),
        "n": len(payloads),
        "rows": [],
        "note": None,
    }
    if len(payloads) < 2:
        entry["note"] = wording.sentence(
            gettext_noop("Fewer than 2 weighted respondents answered it.")
        )
        return entry
    if not weights.sum() > 0:
        entry["note"] = wording.sentence(
            gettext_noop("Every respondent who answered it has weight 0.")
        )
        return entry
    if isinstance(mechanism, SupportMechanism):
        entry["measure"] = "share"
        # The unweighted column is the results page's estimate with the
        # results page's interval: one method per estimand on every page.
        plain = mechanism.estimate(mechanism.aggregate(payloads))
        weighted = ldp.weighted_estimate(mechanism, payloads, weights, strata)
        low_u, high_u = _interval(plain)
        low_w, high_w = _interval(weighted)
        for i, label in enumerate(labels_for(question, mechanism)):
            entry["rows"].append(
                {
                    "label": label,
                    "unweighted": float(plain.estimate[i]),
                    "unweighted_low": float(low_u[i]),
                    "unweighted_high": float(high_u[i]),
                    "weighted": float(weighted.estimate[i]),
                    "weighted_low": float(low_w[i]),
                    "weighted_high": float(high_w[i]),
                }
            )
        entry["design_effect"] = weighted.design_effect
    elif hasattr(mechanism, "scores"):
        entry["measure"] = "mean"
        plain_mean = mechanism.estimate(mechanism.aggregate(payloads)).mean()
        weighted_mean = ldp.weighted_mean(mechanism, payloads, weights, strata)
        low_u, high_u = _interval(plain_mean)
        low_w, high_w = _interval(weighted_mean)
        label = _mean_label(question, mechanism)
        entry["rows"].append(
            {
                "label": wording.english(label),
                "label_note": label,
                "unweighted": float(plain_mean.estimate),
                "unweighted_low": float(low_u),
                "unweighted_high": float(high_u),
                "weighted": float(weighted_mean.estimate),
                "weighted_low": float(low_w),
                "weighted_high": float(high_w),
            }
        )
        entry["design_effect"] = ldp.kish_design_effect(weights)
    else:
        entry["note"] = wording.sentence(
            gettext_noop("This mechanism has no weighted estimator.")
        )
    return entry


def weighted_result(
    survey: Survey, params: dict[str, Any], *, upto: int, progress: Progress
) -> dict[str, Any]:
    """Compute the weights and every protected question's weighted estimates;
    the stored table (JSON), or WeightingRefused saying why not."""
    kept, fit, margins, dropped = calibrate(survey, params, upto=upto)
    progress(0.4)
    position = {s: i for i, s in enumerate(kept)}
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
        weights = np.asarray([fit.weights[position[s]] for s, _ in pairs])
        strata = (
            None
            if fit.cells is None
            else [str(fit.cells[position[s]]) for s, _ in pairs]
        )
        entries.append(question_rows(question, [p for _, p in pairs], weights, strata))
        progress(0.4 + 0.55 * done / len(questions))
    summary = fit.to_dict()
    return {
        "method": summary["method"],
        "iterations": summary["iterations"],
        "max_margin_error": summary["max_margin_error"],
        "design_effect": summary["design_effect"],
        "effective_sample_size": summary["effective_sample_size"],
        "min_weight": summary["min_weight"],
        "max_weight": summary["max_weight"],
        "n": len(kept),
        "dropped": dropped,
        "level": LEVEL,
        "margins": margins,
        "questions": entries,
    }
