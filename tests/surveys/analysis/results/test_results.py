"""survey_results: estimates from tallies equal ldp's on the same reports."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ldp
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import Interval
from surveys.analysis.tallies import services
from surveys.analysis.wording import english
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.selectors import question_privacy_config
from surveys.collection.models import Report
from tests.surveys.analysis.conftest import (
    FAMILIES,
    FAMILY_EPSILON,
    make_survey,
    submit_bulk,
)
from tests.surveys.stored_reports import payloads

pytestmark = pytest.mark.django_db


@pytest.fixture
def family_survey(shared_family_survey):
    """The module's survey of every family, made once; each test adds its
    reports inside its own transaction (rolled back)."""
    return shared_family_survey


def _ldp_estimate(question):
    reports = payloads(
        Report.objects.filter(question=question, spec_revision=question.spec_revision)
    )
    mechanism = ldp.build(question.spec)
    return mechanism, mechanism.aggregate(reports)


def _close(got, expected) -> bool:
    return np.allclose(np.asarray(got, float), np.asarray(expected, float), rtol=1e-12)


def test_results_equal_ldp_estimates_on_the_same_reports_for_every_family(
    family_survey,
):
    submit_bulk(family_survey, 400)
    services.tallies_refresh(survey_id=family_survey.pk, batch_size=999)
    results = selectors.survey_results(survey=family_survey)

    assert [q.mechanism for q in results.questions] == [f[0] for f in FAMILIES]
    questions = {q.pk: q for q in family_survey.questions.all()}
    for result in results.questions:
        mechanism, stat = _ldp_estimate(questions[result.question_id])
        assert result.n == stat.n == 400
        assert result.epsilon == mechanism.epsilon
        estimate = mechanism.estimate(stat)
        mean = estimate.mean()
        if mean is not None:  # ordinal and numeric: the mean with a t interval
            interval = mean.confidence_interval(0.95, "t")
            assert _close(result.mean, mean.estimate)
            assert _close(result.mean_standard_error, mean.standard_error)
            assert result.mean_interval == Interval(interval.low, interval.high)
        else:
            assert result.mean is None
        if estimate.identifiable:
            method = "wald" if mean is not None else "exact"
            interval = estimate.confidence_interval(0.95, method=method)
            assert _close(result.estimate, estimate.estimate)
            assert _close(result.standard_error, estimate.standard_error)
            assert _close([i.low for i in result.intervals], interval.low)
            assert _close([i.high for i in result.intervals], interval.high)
            assert result.interval_method == method
            assert len(result.labels) == len(result.estimate) == mechanism.k
            if estimate.sums_to_one:
                assert _close(result.consistent, estimate.consistent("norm-sub"))
            else:  # multi-select shares need not sum to 1
                assert result.consistent is None
        else:  # Duchi: the levels are not identifiable, only the mean
            assert result.estimate == [] and result.interval_method == "t"


def test_results_describe_the_survey_and_its_unprotected_questions(family_survey):
    submit_bulk(family_survey, 20)
    services.tallies_refresh(survey_id=family_survey.pk)
    results = selectors.survey_results(survey=family_survey)
    plain = family_survey.questions.get(is_private=False)

    assert results.not_protected == [(plain.pk, plain.text)]
    assert results.total_epsilon == pytest.approx(
        math.fsum(q.epsilon for q in results.questions)
    )
    assert results.total_epsilon <= len(FAMILIES) * FAMILY_EPSILON + 1e-9
    assert results.pending_reports == 0
    assert results.refreshed_at is not None
    assert [q.position for q in results.questions] == sorted(
        q.position for q in results.questions
    )
    grr = next(q for q in results.questions if q.mechanism == "grr")
    assert grr.mechanism_label == "Generalized randomized response"
    assert grr.labels == ["Never", "Sometimes", "Often", "Always"]
    assert grr.consistent is not None
    assert sum(grr.consistent) == pytest.approx(1)


def test_results_come_from_tallies_not_from_reports_stored_since(family_survey):
    submit_bulk(family_survey, 10)
    services.tallies_refresh(survey_id=family_survey.pk)
    submit_bulk(family_survey, 7, seed=2)

    results = selectors.survey_results(survey=family_survey)

    assert {q.n for q in results.questions} == {10}
    assert results.pending_reports == 7 * len(FAMILIES)


def test_results_with_no_reports_warn_and_plan_from_one_response(researcher):
    survey = make_survey(researcher, FAMILIES[:1])
    result = selectors.survey_results(survey=survey).questions[0]
    mechanism = ldp.build(survey.questions.get(is_private=True).spec)

    assert result.n == 0
    assert result.estimate == []
    assert [english(w) for w in result.warnings] == ["No reports yet."]
    assert result.margin_of_error == pytest.approx(ldp.margin_of_error(mechanism, 1))
    assert result.responses_needed == ldp.sample_size(mechanism, 0.05)
    assert selectors.survey_results(survey=survey).refreshed_at is None


def test_responses_needed_is_zero_once_the_target_margin_is_met(researcher):
    survey = make_survey(researcher, FAMILIES[:1], plain=False)
    submit_bulk(survey, 50)
    services.tallies_refresh(survey_id=survey.pk)

    result = selectors.survey_results(survey=survey, target_margin=0.9).questions[0]

    assert result.responses_needed == 0
    assert result.margin_of_error < 0.9


def test_influence_factor_is_one_percent_of_a_fake_reports_reach(researcher):
    survey = make_survey(researcher, [("grr", "single_choice", FAMILIES[2][2])])
    result = selectors.survey_results(survey=survey).questions[0]
    mechanism = ldp.build(survey.questions.get(is_private=True).spec)
    p, q = mechanism.p_star[0], mechanism.q_star[0]

    assert result.influence_factor == pytest.approx(0.01 * (1 - q) / (p - q))


def test_reports_under_an_older_spec_revision_are_counted_apart_and_warned(
    researcher,
):
    survey = make_survey(researcher, FAMILIES[2:3], plain=False)
    submit_bulk(survey, 12)
    question = survey.questions.get()
    config = question_privacy_config(question)
    authoring.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig(**{**config.__dict__, "epsilon": 0.5}),
    )
    question.refresh_from_db()
    survey.refresh_from_db()
    assert question.spec_revision == 2
    submit_bulk(survey, 5, seed=3)
    services.tallies_refresh(survey_id=survey.pk)

    result = selectors.survey_results(survey=survey).questions[0]

    assert result.n == 5
    assert result.spec_revision == 2
    worded = [english(w) for w in result.warnings]
    assert (
        "12 reports made under earlier versions of this question are not included."
        in worded
    )
    assert any("far outside 0–100%" in warning for warning in worded)
