"""Regression of a randomized outcome on unprotected answers, as a background job.

The outcome is a protected question's randomized reports; the covariates are
answers given in the clear (unprotected questions) by the same respondents.
A protected yes/no question with a randomized-response mechanism gives a
logistic regression fitted through the mechanism's known channel
(``ldp.logistic_regression``, docs/maths.md 6.4); a protected number gives a
linear regression of its unbiased per-report scores with a sandwich covariance
(``ldp.score_regression``, 6.5).  Like cross-tabs, a regression reads only the
reports up to the survey's results snapshot, so it advances in the same
batches as the results, and an identical request reuses the stored job until
the snapshot or the questions change.  What is stored is the coefficient table
and the counts, nothing per respondent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.utils.translation import gettext_noop

import ldp
from ldp.mechanisms import registry
from ldp.mechanisms.about import LOGISTIC
from ldp.regression.design import DesignMatrix
from surveys.analysis import wording
from surveys.analysis.models import AnalysisJob, job_find_or_create
from surveys.analysis.results import selectors
from surveys.authoring import kinds
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.kinds import kinds_where
from surveys.authoring.models import Question, Survey
from surveys.collection import report_codec
from surveys.collection.models import PlainAnswer, Report
from surveys.collection.questions import answer_choices, value_label

COVARIATE_KINDS = set(kinds_where(one_choice=True)) | set(kinds_where(grid=True))
# At least this many complete cases per coefficient (intercept included): the
# events-per-variable rule of Peduzzi et al., J Clin Epidemiol 49(12), 1996.
CASES_PER_COEFFICIENT = 10
LEVEL = 0.95
CHUNK = 5000
Progress = Callable[[float], None]


class RegressionRefused(wording.Refusal):
    """The regression cannot be run as asked; the message says why."""


def outcome_model(question: Question) -> str | None:
    """``"logistic"``, ``"linear"`` or None: the model a question can be the
    outcome of (a protected yes/no question under a binary mechanism, or a
    protected number): what the question's mechanism declares."""
    if not question.is_private:
        return None
    family = registry.of(question.spec)
    return family.regression if family else None


def outcome_candidates(survey: Survey) -> list[Question]:
    """The survey's questions that can be a regression's outcome."""
    return [q for q in selectors.survey_questions(survey) if outcome_model(q)]


def covariate_candidates(survey: Survey) -> list[Question]:
    """Unprotected questions with one answer (a choice or a number)."""
    return [
        q
        for q in selectors.survey_questions(survey)
        if not q.is_private and q.kind in COVARIATE_KINDS
    ]


def levels(question: Question) -> list[str] | None:
    """A choice covariate's answer labels in order (None: a number)."""
    if kinds.facts(question.kind).grid:
        return None
    return [label for _, label in answer_choices(question)]


def regression_request(
    *,
    survey: Survey,
    outcome: int | None,
    covariates: list[int],
    references: dict[int, str],
) -> tuple[AnalysisJob, bool]:
    """(the regression job for this model on the current results, created).

    ``references`` names each choice covariate's reference level (default:
    its first answer).  Refused, storing nothing, for an outcome that is not
    a protected yes/no (binary mechanism) or number question, a protected or
    unknown covariate, no covariate, or an unknown reference level.
    """
    questions = {q.pk: q for q in selectors.survey_questions(survey)}
    target = questions.get(outcome) if outcome is not None else None
    if target is None:
        raise RegressionRefused(
            gettext_noop("Pick the outcome: a question of this survey.")
        )
    if outcome_model(target) is None:
        raise RegressionRefused(
            gettext_noop(
                "“%(text)s” cannot be the outcome: pick a protected yes/no "
                "question answered through randomized response (forced response, "
                "Warner or unrelated question) for a logistic regression, or a "
                "protected number for a linear regression."
            ),
            text=target.text,
        )
    if not covariates:
        raise RegressionRefused(gettext_noop("Pick at least one covariate."))
    chosen = sorted(set(covariates))
    reference: dict[str, str] = {}
    for pk in chosen:
        question = questions.get(pk)
        if question is None:
            raise RegressionRefused(
                gettext_noop("Pick covariates among this survey's questions.")
            )
        if question.is_private:
            raise RegressionRefused(
                gettext_noop(
                    "“%(text)s” is protected: its answers were randomized, so it "
                    "cannot be a covariate. Pick questions answered in the clear "
                    "(unprotected)."
                ),
                text=question.text,
            )
        if question.kind not in COVARIATE_KINDS:
            raise RegressionRefused(
                gettext_noop(
                    "“%(text)s” allows several answers, so it cannot be a "
                    "covariate; pick a question with one answer or a number."
                ),
                text=question.text,
            )
        options = levels(question)
        if options is not None:
            level = references.get(pk) or options[0]
            if level not in options:
                raise RegressionRefused(
                    gettext_noop(
                        "The reference level of “%(text)s” is “%(level)s”; "
                        "allowed: one of %(options)s."
                    ),
                    text=question.text,
                    level=level,
                    options=", ".join(options),
                )
            reference[str(pk)] = level
    snapshot = selectors.latest_snapshot(survey_id=survey.pk)
    params = {
        "outcome": target.pk,
        "covariates": chosen,
        "reference": reference,
        "definition": selectors.survey_definition(list(questions.values())),
    }
    lookup = {
        "survey": survey,
        "kind": AnalysisJob.Kind.REGRESSION,
        "params": params,
        "watermark": snapshot.watermark if snapshot is not None else 0,
    }
    return job_find_or_create(lookup)


@dataclass(frozen=True)
class RegressionData:
    """The complete cases a regression uses."""

    outcome: Question
    mechanism: ldp.Mechanism
    reports: np.ndarray  # one per complete case, as the mechanism's array
    design: DesignMatrix
    respondents: int  # with a report for the outcome (up to the watermark)
    covariates: list[Question]


def _column_name(question: Question, taken: set[str]) -> str:
    name = question.text if question.text not in taken else f"Q{question.position}"
    taken.add(name)
    return name


def regression_data(
    survey: Survey, params: dict[str, Any], *, upto: int, progress: Progress
) -> RegressionData:
    """Read the outcome's reports (current spec, ``id <= upto``, no test
    responses) and the covariates' answers; keep complete cases."""
    questions = {q.pk: q for q in selectors.survey_questions(survey)}
    outcome = questions.get(params["outcome"])
    covariates = [questions.get(pk) for pk in params["covariates"]]
    if outcome is None or any(q is None for q in covariates):
        raise RegressionRefused(
            gettext_noop("A question of this regression has been removed.")
        )
    chosen = [q for q in covariates if q is not None]
    mechanism = outcome.compiled_mechanism()
    if mechanism is None:
        raise RegressionRefused(
            gettext_noop("“%(text)s” is no longer protected."), text=outcome.text
        )
    rows = Report.objects.filter(
        survey_id=outcome.survey_id,
        question=outcome,
        spec_revision=outcome.spec_revision,
        id__lte=upto,
    ).values_list("submission_id", "value", "bits")
    payloads = dict(report_codec.decode_rows(outcome.spec, rows.iterator(CHUNK)))
    progress(0.3)
    answers: dict[int, dict[int, Any]] = {}
    for question in chosen:
        found = PlainAnswer.objects.filter(question=question).values_list(
            "submission_id", "value"
        )
        answers[question.pk] = {
            s: v for s, v in found.iterator(chunk_size=CHUNK) if s in payloads
        }
    progress(0.6)
    complete = sorted(s for s in payloads if all(s in answers[q.pk] for q in chosen))
    _enough(len(complete), 1 + len(chosen), at_least=True)
    data: dict[str, list[Any]] = {}
    numeric: list[str] = []
    categorical: dict[str, str] = {}
    taken: set[str] = set()
    for question in chosen:
        name = _column_name(question, taken)
        values = answers[question.pk]
        if kinds.facts(question.kind).grid:
            data[name] = [float(values[s]) for s in complete]
            numeric.append(name)
        else:
            data[name] = [value_label(question, int(values[s])) for s in complete]
            categorical[name] = params["reference"][str(question.pk)]
    try:
        design = ldp.design_matrix(data, numeric=numeric, categorical=categorical)
    except ValueError as error:
        raise RegressionRefused(
            gettext_noop("Among the %(n)s respondents with every answer: %(error)s."),
            n=len(complete),
            error=str(error),
        ) from None
    reports = mechanism.reports_to_array([payloads[s] for s in complete])
    return RegressionData(outcome, mechanism, reports, design, len(payloads), chosen)


def _enough(n: int, k: int, *, at_least: bool = False) -> None:
    """RegressionRefused unless ``n`` complete cases suffice for ``k`` coefficients."""
    needed = CASES_PER_COEFFICIENT * k
    if n < needed:
        message = (
            gettext_noop(
                "Too few respondents: %(n)s answered the outcome and every "
                "covariate, and this model has at least %(k)s coefficients, so at "
                "least %(needed)s are needed (%(per)s per coefficient). Drop "
                "covariates or wait for more responses."
            )
            if at_least
            else gettext_noop(
                "Too few respondents: %(n)s answered the outcome and every "
                "covariate, and this model has %(k)s coefficients, so at least "
                "%(needed)s are needed (%(per)s per coefficient). Drop covariates "
                "or wait for more responses."
            )
        )
        raise RegressionRefused(
            message, n=n, k=k, needed=needed, per=CASES_PER_COEFFICIENT
        )


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def regression_result(
    survey: Survey, params: dict[str, Any], *, upto: int, progress: Progress
) -> dict[str, Any]:
    """Fit the model ``params`` describe; the stored table (JSON), or
    RegressionRefused saying why it cannot be fitted."""
    data = regression_data(survey, params, upto=upto, progress=progress)
    n, k = data.design.matrix.shape
    _enough(n, k)
    model = outcome_model(data.outcome)
    fit: ldp.LogisticRegressionResult | ldp.LinearRegressionResult
    try:
        if model == LOGISTIC:
            fit = ldp.logistic_regression(data.reports, data.design, data.mechanism)
        else:
            fit = ldp.score_regression(data.reports, data.design, data.mechanism)
    except ldp.ConvergenceError as error:
        raise RegressionRefused(
            gettext_noop(
                "The fit did not converge: %(error)s. Drop covariates, merge "
                "answers or wait for more responses."
            ),
            error=str(error),
        ) from None
    except ValueError as error:  # NotIdentifiable, rank-deficient design
        raise RegressionRefused(
            gettext_noop("The model cannot be fitted: %(error)s."), error=str(error)
        ) from None
    progress(0.9)
    table = fit.summary(LEVEL)
    rows = [
        {key: (_finite(v) if isinstance(v, float) else v) for key, v in row.items()}
        for row in table.to_records()
    ]
    reference = params["reference"]
    result: dict[str, Any] = {
        "model": model,
        "outcome": {
            "text": data.outcome.text,
            "kind": data.outcome.kind,
            "mechanism": data.mechanism.name,
            "mechanism_label": mechanism_label(data.mechanism.name),
            "epsilon": float(data.mechanism.epsilon),
        },
        "covariates": [
            {
                "text": q.text,
                "kind": q.kind,
                "reference": reference.get(str(q.pk)),
            }
            for q in data.covariates
        ],
        "n": n,
        "respondents": data.respondents,
        "dropped": data.respondents - n,
        "level": LEVEL,
        "columns": list(table.columns),
        "rows": rows,
    }
    if isinstance(fit, ldp.LogisticRegressionResult):
        test = fit.likelihood_ratio_test()
        result["outcome"].update(p=fit.p, q=fit.q)
        result["lr_test"] = (
            None
            if test is None
            else {"statistic": test.statistic, "df": test.df, "pvalue": test.pvalue}
        )
    else:
        result["hc"] = fit.hc
        result["bias_bound"] = fit.bias_bound
    return result
