"""Weighted-estimate jobs: the stored table equals ldp's weights and estimators."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from surveys.analysis.jobs import running as jobs
from surveys.analysis.jobs import weights
from surveys.analysis.models import AnalysisJob
from surveys.analysis.tallies.services import tallies_recount, tallies_refresh
from surveys.analysis.tallies.snapshots import snapshot_refresh
from surveys.collection.models import PlainAnswer, Report
from tests.surveys.analysis.model_support import (
    CHEATED,
    EMPLOYED,
    HOURS,
    REGION,
    REGIONS,
    questions,
)
from tests.surveys.stored_reports import payloads

pytestmark = pytest.mark.django_db
EVEN = [1 / 3, 1 / 3, 1 / 3]


def _run(survey, margins):
    q = questions(survey)
    job, created = weights.weighted_request(
        survey=survey, margins={q[text].pk: shares for text, shares in margins.items()}
    )
    jobs.job_run(job_id=job.pk)
    job.refresh_from_db()
    return job, created


def _recount(survey):
    """After answers were edited in place: tallies and snapshot from them."""
    tallies_recount(survey_id=survey.pk)
    snapshot_refresh(survey_id=survey.pk, force=True)


def _answers(survey, text):
    question = questions(survey)[text]
    return dict(
        PlainAnswer.objects.filter(question=question).values_list(
            "submission_id", "value"
        )
    )


def _reports(survey, text):
    question = questions(survey)[text]
    rows = Report.objects.filter(question=question).order_by("submission_id")
    return dict(payloads(rows, "submission_id"))


def _margins(survey, margins):
    return {questions(survey)[t].pk: shares for t, shares in margins.items()}


def test_post_stratified_estimates_and_intervals_equal_ldp_with_the_cells(seeded):
    job, created = _run(seeded, {REGION: EVEN})
    assert created and job.status == AnalysisJob.Status.DONE, job.error
    region = _answers(seeded, REGION)
    ids = sorted(region)
    labels = [REGIONS[region[s]] for s in ids]
    fit = ldp.post_stratify(labels, dict(zip(REGIONS, EVEN, strict=True)))
    weight = dict(zip(ids, fit.weights, strict=True))
    cell = dict(zip(ids, fit.cells, strict=True))
    reports = _reports(seeded, CHEATED)
    mechanism = ldp.build(questions(seeded)[CHEATED].spec)
    expected = ldp.weighted_estimate(
        mechanism,
        list(reports.values()),
        [weight[s] for s in reports],
        [cell[s] for s in reports],
    )
    plain = ldp.weighted_estimate(
        mechanism, list(reports.values()), np.ones(len(reports))
    )
    result = job.result
    assert result["method"] == "post-stratification" and result["n"] == len(ids)
    assert result["design_effect"] == pytest.approx(fit.design_effect)
    assert result["effective_sample_size"] == pytest.approx(fit.effective_sample_size)
    (cheated,) = [e for e in result["questions"] if e["text"] == CHEATED]
    assert [r["weighted"] for r in cheated["rows"]] == pytest.approx(
        expected.estimate.tolist()
    )
    interval = expected.confidence_interval(0.95)
    assert [r["weighted_low"] for r in cheated["rows"]] == pytest.approx(
        interval.low.tolist()
    )
    assert [r["unweighted"] for r in cheated["rows"]] == pytest.approx(
        plain.estimate.tolist()
    )


def test_the_weighted_mean_of_a_number_equals_ldp_weighted_mean(seeded):
    job, _ = _run(seeded, {REGION: EVEN})
    region = _answers(seeded, REGION)
    ids = sorted(region)
    fit = ldp.post_stratify(
        [REGIONS[region[s]] for s in ids], dict(zip(REGIONS, EVEN, strict=True))
    )
    weight = dict(zip(ids, fit.weights, strict=True))
    cell = dict(zip(ids, fit.cells, strict=True))
    reports = _reports(seeded, HOURS)
    mechanism = ldp.build(questions(seeded)[HOURS].spec)
    expected = ldp.weighted_mean(
        mechanism,
        list(reports.values()),
        [weight[s] for s in reports],
        [cell[s] for s in reports],
    )
    (hours,) = [e for e in job.result["questions"] if e["text"] == HOURS]
    assert hours["measure"] == "mean"
    assert hours["rows"][0]["weighted"] == pytest.approx(expected.estimate)
    low = expected.confidence_interval(0.95).low
    assert hours["rows"][0]["weighted_low"] == pytest.approx(low)


def test_raking_to_two_margins_meets_both_and_equals_ldp_rake(seeded):
    margins = {REGION: EVEN, EMPLOYED: [0.5, 0.5]}  # Yes, No
    job, _ = _run(seeded, margins)
    assert job.status == AnalysisJob.Status.DONE, job.error
    region, employed = _answers(seeded, REGION), _answers(seeded, EMPLOYED)
    ids = sorted(region)
    fit = ldp.rake(
        {
            REGION: [REGIONS[region[s]] for s in ids],
            EMPLOYED: ["Yes" if employed[s] == 1 else "No" for s in ids],
        },
        {
            REGION: dict(zip(REGIONS, EVEN, strict=True)),
            EMPLOYED: {"Yes": 0.5, "No": 0.5},
        },
    )
    assert job.result["method"] == "raking"
    assert job.result["design_effect"] == pytest.approx(fit.design_effect)
    for margin in job.result["margins"]:
        assert margin["weighted"] == pytest.approx(margin["targets"], abs=1e-8)


def test_weighting_moves_the_estimate_toward_the_population(seeded):
    # South (30% of the sample, over-represented relative to nobody) studies
    # more: giving South half of the population raises the weighted mean.
    job, _ = _run(seeded, {REGION: [0.25, 0.5, 0.25]})
    (hours,) = [e for e in job.result["questions"] if e["text"] == HOURS]
    row = hours["rows"][0]
    assert row["weighted"] > row["unweighted"]
    assert job.result["design_effect"] > 1


def test_an_identical_request_reuses_the_stored_job(seeded):
    first, created = _run(seeded, {REGION: EVEN})
    again, created_again = _run(seeded, {REGION: EVEN})
    assert created and not created_again and again.pk == first.pk


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("30, 30, 30", "add up to 90%, not 100%"),
        ("50, 50", "give 3 percentages"),
        ("a, b, c", "not a list of percentages"),
        ("150, -25, -25", "from 0 to 100"),
    ],
)
def test_bad_margins_are_refused_with_a_message(seeded, text, message):
    with pytest.raises(weights.WeightingRefused, match=message):
        weights.parse_margin(questions(seeded)[REGION], text)


def test_margins_that_do_not_sum_to_one_are_refused_and_nothing_is_stored(seeded):
    with pytest.raises(weights.WeightingRefused, match="not 100%"):
        weights.weighted_request(
            survey=seeded, margins=_margins(seeded, {REGION: [0.5, 0.4, 0.3]})
        )
    assert not AnalysisJob.objects.exists()


def test_a_protected_question_cannot_be_a_margin(seeded):
    with pytest.raises(weights.WeightingRefused, match="unprotected"):
        weights.weighted_request(
            survey=seeded, margins=_margins(seeded, {CHEATED: [0.5, 0.5]})
        )
    with pytest.raises(weights.WeightingRefused, match="at least one"):
        weights.weighted_request(survey=seeded, margins={})
    assert not AnalysisJob.objects.exists()


def test_an_empty_cell_fails_the_job_naming_it(seeded):
    PlainAnswer.objects.filter(question=questions(seeded)[REGION], value=2).delete()
    _recount(seeded)
    job, _ = _run(seeded, {REGION: EVEN})
    assert job.status == AnalysisJob.Status.FAILED and job.result is None
    assert "Empty cell" in job.error and "“East”" in job.error


def test_raking_that_cannot_meet_the_margins_fails_the_job(seeded):
    # Everyone in the East has a job and nobody else has: the margins below
    # ask for 1/3 East and 90% without a job, which no weights can meet.
    q = questions(seeded)
    east = PlainAnswer.objects.filter(question=q[REGION], value=2)
    employed = PlainAnswer.objects.filter(question=q[EMPLOYED])
    employed.update(value=0)
    employed.filter(submission_id__in=east.values("submission_id")).update(value=1)
    _recount(seeded)
    job, _ = _run(seeded, {REGION: EVEN, EMPLOYED: [0.1, 0.9]})
    assert job.status == AnalysisJob.Status.FAILED
    assert "Raking did not converge" in job.error


def test_every_mechanism_family_gets_a_weighted_estimate(researcher):
    from tests.surveys.analysis.conftest import make_survey, submit_bulk

    survey = make_survey(researcher)
    submit_bulk(survey, 60)
    tallies_refresh(survey_id=survey.pk)
    snapshot_refresh(survey_id=survey.pk, force=True)
    plain = survey.questions.get(is_private=False)
    job, _ = weights.weighted_request(survey=survey, margins={plain.pk: [1.0, 0.0]})
    jobs.job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.DONE, job.error
    entries = {
        e["text"].removeprefix("Question under "): e for e in job.result["questions"]
    }
    assert len(entries) == survey.questions.filter(is_private=True).count()
    for name, entry in entries.items():
        assert entry["rows"] and not entry["note"], name
        for row in entry["rows"]:  # everyone answered "Yes": equal weights
            assert row["weighted"] == pytest.approx(row["unweighted"]), name
    assert entries["ordinal"]["rows"][0]["label"].startswith("Mean on the scale 0")
    assert entries["duchi"]["measure"] == "mean"
    assert entries["olh"]["measure"] == "share"
