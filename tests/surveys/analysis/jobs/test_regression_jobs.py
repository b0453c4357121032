"""Regression jobs: the stored table equals ldp on the same complete cases."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from surveys.analysis.jobs import regressions
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob
from surveys.collection.models import PlainAnswer, Report
from tests.surveys.analysis.model_support import (
    AGE,
    CHEATED,
    EMPLOYED,
    HOURS,
    REGION,
    make_model_survey,
    questions,
    seed_respondents,
)
from tests.surveys.stored_reports import payloads

pytestmark = pytest.mark.django_db


SEEDED_RESPONDENTS = 1000  # the module's kept survey (conftest.py)


def _run(survey, outcome, covariates, references=None):
    q = questions(survey)
    job, created = regressions.regression_request(
        survey=survey,
        outcome=q[outcome].pk,
        covariates=[q[c].pk for c in covariates],
        references={q[k].pk: v for k, v in (references or {}).items()},
    )
    jobs.job_run(job_id=job.pk)
    job.refresh_from_db()
    return job, created


def _complete_cases(survey, outcome, covariates):
    """The outcome's reports and the covariates' answers, read here directly."""
    q = questions(survey)
    reports = dict(
        payloads(Report.objects.filter(question=q[outcome]), "submission_id")
    )
    answers = {
        c: dict(
            PlainAnswer.objects.filter(question=q[c]).values_list(
                "submission_id", "value"
            )
        )
        for c in covariates
    }
    ids = sorted(s for s in reports if all(s in answers[c] for c in covariates))
    return ids, reports, answers


def test_a_logistic_regression_job_equals_ldp_on_the_same_complete_cases(seeded):
    job, created = _run(seeded, CHEATED, [REGION, AGE], {REGION: "North"})
    assert created and job.status == AnalysisJob.Status.DONE, job.error
    ids, reports, answers = _complete_cases(seeded, CHEATED, [REGION, AGE])
    region_q = questions(seeded)[REGION]
    labels = [region_q.options[int(answers[REGION][s])] for s in ids]
    design = ldp.design_matrix(
        {REGION: labels, AGE: [float(answers[AGE][s]) for s in ids]},
        numeric=[AGE],
        categorical={REGION: "North"},
    )
    mechanism = ldp.build(questions(seeded)[CHEATED].spec)
    fit = ldp.logistic_regression([reports[s] for s in ids], design, mechanism)
    stored = job.result
    assert stored["model"] == "logistic"
    assert stored["n"] == len(ids) and stored["dropped"] == len(reports) - len(ids)
    assert stored["dropped"] > 0  # some skipped their age: complete cases only
    assert [row["term"] for row in stored["rows"]] == list(fit.names)
    assert [row["estimate"] for row in stored["rows"]] == pytest.approx(
        fit.coef.tolist(), rel=1e-9
    )
    assert [row["std_error"] for row in stored["rows"]] == pytest.approx(
        fit.standard_error.tolist(), rel=1e-9
    )
    assert [row["odds_ratio"] for row in stored["rows"]] == pytest.approx(
        np.exp(fit.coef).tolist(), rel=1e-9
    )
    assert stored["outcome"]["p"] == pytest.approx(fit.p)
    assert stored["outcome"]["epsilon"] == pytest.approx(mechanism.epsilon)


def test_a_logistic_regression_recovers_the_simulated_direction(seeded):
    job, _ = _run(seeded, CHEATED, [REGION, AGE], {REGION: "North"})
    coef = {row["term"]: row for row in job.result["rows"]}
    south, age = coef[f"{REGION}[South]"], coef[AGE]
    assert south["ci_low"] < 0.9 < south["ci_high"] and south["ci_low"] > 0
    assert age["ci_low"] < 0.03 < age["ci_high"]


def test_a_linear_regression_job_equals_ldp_score_regression(seeded):
    job, _ = _run(seeded, HOURS, [REGION, EMPLOYED], {REGION: "East"})
    assert job.status == AnalysisJob.Status.DONE, job.error
    ids, reports, answers = _complete_cases(seeded, HOURS, [REGION, EMPLOYED])
    q = questions(seeded)
    design = ldp.design_matrix(
        {
            REGION: [q[REGION].options[int(answers[REGION][s])] for s in ids],
            EMPLOYED: ["Yes" if answers[EMPLOYED][s] else "No" for s in ids],
        },
        categorical={REGION: "East", EMPLOYED: "Yes"},
    )
    mechanism = ldp.build(q[HOURS].spec)
    fit = ldp.score_regression(np.asarray([reports[s] for s in ids]), design, mechanism)
    rows = job.result["rows"]
    assert job.result["model"] == "linear" and job.result["n"] == len(ids)
    assert [row["term"] for row in rows] == list(fit.names)
    assert [row["estimate"] for row in rows] == pytest.approx(fit.coef.tolist())
    assert [row["std_error"] for row in rows] == pytest.approx(
        fit.standard_error.tolist()
    )
    assert "odds_ratio" not in rows[0]


def test_an_identical_request_reuses_the_stored_job_until_the_data_change(seeded):
    first, _ = _run(seeded, CHEATED, [REGION], {REGION: "North"})
    again, created_again = _run(seeded, CHEATED, [REGION], {REGION: "North"})
    assert again.pk == first.pk and not created_again
    other, created_other = _run(seeded, CHEATED, [REGION], {REGION: "South"})
    assert created_other and other.pk != first.pk
    seed_respondents(seeded, 60, seed=99)  # the snapshot moves on
    fresh, created_fresh = _run(seeded, CHEATED, [REGION], {REGION: "North"})
    assert created_fresh and fresh.pk != first.pk and fresh.watermark > first.watermark
    assert fresh.result["n"] > first.result["n"]


@pytest.mark.parametrize(
    ("outcome", "covariates", "message"),
    [
        (REGION, [AGE], "cannot be the outcome"),
        (CHEATED, [HOURS], "is protected"),
        (CHEATED, [], "at least one covariate"),
    ],
)
def test_a_bad_model_is_refused_and_nothing_is_stored(
    seeded, outcome, covariates, message
):
    before = AnalysisJob.objects.count()
    with pytest.raises(regressions.RegressionRefused, match=message):
        _run(seeded, outcome, covariates)
    assert AnalysisJob.objects.count() == before


def test_an_unknown_reference_level_is_refused(seeded):
    before = AnalysisJob.objects.count()
    with pytest.raises(regressions.RegressionRefused, match="allowed: one of"):
        _run(seeded, CHEATED, [REGION], {REGION: "West"})
    assert AnalysisJob.objects.count() == before


def test_too_few_respondents_for_the_coefficients_fails_the_job_with_why(ada):
    survey = make_model_survey(ada, title="Small")
    seed_respondents(survey, 46)  # about 44 complete cases: 40 to 49 needed
    job, _ = _run(survey, CHEATED, [REGION, AGE, EMPLOYED])
    assert job.status == AnalysisJob.Status.FAILED and job.result is None
    assert "Too few respondents" in job.error and "5 coefficients" in job.error


def test_a_covariate_with_one_level_among_complete_cases_fails_the_job(ada):
    survey = make_model_survey(ada, title="One region")
    seed_respondents(survey, 200)
    q = questions(survey)
    PlainAnswer.objects.filter(question=q[REGION]).exclude(value=0).delete()
    job, _ = _run(survey, CHEATED, [REGION])
    assert job.status == AnalysisJob.Status.FAILED and job.result is None
    assert "single level" in job.error


def test_a_fit_drifting_to_a_probability_of_zero_fails_the_job_with_why(ada):
    survey = make_model_survey(ada, title="Nobody in the south")
    seed_respondents(survey, 400)
    q = questions(survey)
    south = PlainAnswer.objects.filter(question=q[REGION], value=1)
    Report.objects.filter(
        question=q[CHEATED], submission_id__in=south.values("submission_id")
    ).update(value=0)  # every southern report "no": a debiased share below 0
    job, _ = _run(survey, CHEATED, [REGION])
    assert job.status == AnalysisJob.Status.FAILED and job.result is None
    assert "cannot be fitted" in job.error and "exactly 0 or 1" in job.error
