"""Researcher-chosen analyses run as jobs; identical requests reuse the result."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob, ResultSnapshot
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(ada):
    survey = make_survey(ada)
    simulate(survey, 200)
    return survey


def _pair(survey):
    by = {q.spec["mechanism"]: q for q in survey.questions.filter(is_private=True)}
    return by["warner"], by["ordinal"]


def _cells(html: str) -> list[str]:
    return re.findall(r'data-field="cell">(-?[\d.]+)%<', html)


def test_identical_requests_reuse_the_stored_job(ada_client, answered):
    a, b = _pair(answered)
    url = reverse("analysis:crosstab", args=[answered.pk])
    first = ada_client.get(url, {"a": a.pk, "b": b.pk}).content.decode()
    second = ada_client.get(url, {"a": a.pk, "b": b.pk}).content.decode()
    (job,) = AnalysisJob.objects.filter(survey=answered)
    assert job.status == AnalysisJob.Status.DONE and job.progress == 1.0
    assert _cells(first) == _cells(second) != []


def test_a_new_snapshot_makes_a_new_job_on_the_new_data(ada_client, answered):
    a, b = _pair(answered)
    url = reverse("analysis:crosstab", args=[answered.pk])
    ada_client.get(url, {"a": a.pk, "b": b.pk})
    simulate(answered, 50, seed=3)
    html = ada_client.get(url, {"a": a.pk, "b": b.pk}).content.decode()
    assert AnalysisJob.objects.filter(survey=answered).count() == 2
    assert 'data-field="crosstab-n">250<' in html


def test_jobs_read_only_the_reports_in_the_results_snapshot(
    ada_client, answered, settings
):
    a, b = _pair(answered)
    url = reverse("analysis:crosstab", args=[answered.pk])
    ada_client.get(reverse("analysis:dashboard", args=[answered.pk]))
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    simulate(answered, 3, seed=4)  # held back by batching
    html = ada_client.get(url, {"a": a.pk, "b": b.pk}).content.decode()
    assert ResultSnapshot.objects.get(survey=answered).responses == 200
    assert 'data-field="crosstab-n">200<' in html


def test_breakdown_job_stores_the_table_the_page_shows(ada_client, answered):
    plain = answered.questions.get(is_private=False)
    question = answered.questions.filter(is_private=True).first()
    url = reverse("analysis:crosstab", args=[answered.pk])
    html = ada_client.get(url, {"q": question.pk, "by": plain.pk}).content.decode()
    job = AnalysisJob.objects.get(survey=answered, kind="breakdown")
    assert job.status == AnalysisJob.Status.DONE
    strata = job.result["strata"]
    assert sum(item["stratum"]["n"] for item in strata) == 200
    for item in strata:
        assert f"({item['stratum']['n']} respondent" in html


def test_an_impossible_analysis_is_stored_with_its_reason(ada_client, answered):
    by = {q.spec["mechanism"]: q for q in answered.questions.filter(is_private=True)}
    url = reverse("analysis:crosstab", args=[answered.pk])
    html = ada_client.get(
        url, {"a": by["warner"].pk, "b": by["geometric"].pk}
    ).content.decode()
    job = AnalysisJob.objects.get(survey=answered)
    assert job.status == AnalysisJob.Status.FAILED
    assert "finite-channel mechanism" in job.error
    assert 'role="alert"' in html


def test_job_status_reports_progress_as_json(ada_client, answered):
    a, b = _pair(answered)
    ada_client.get(reverse("analysis:dashboard", args=[answered.pk]))  # snapshot
    job, created = jobs.job_request(
        survey=answered, kind="crosstab", params={"a": a.pk, "b": b.pk}
    )
    assert created and job.status == AnalysisJob.Status.QUEUED
    url = reverse("analysis:job_status", args=[answered.pk, job.pk])
    assert ada_client.get(url).json() == {
        "status": "queued",
        "status_label": "queued",
        "progress": 0.0,
        "finished": False,
    }
    jobs.job_run(job_id=job.pk)
    assert ada_client.get(url).json() == {
        "status": "done",
        "status_label": "done",
        "progress": 1.0,
        "finished": True,
    }


def test_a_request_naming_another_surveys_question_is_refused(ada, answered):
    other = make_survey(ada)
    foreign = other.questions.filter(is_private=True).first()
    a, _ = _pair(answered)
    with pytest.raises(jobs.JobRefused):
        jobs.job_request(
            survey=answered, kind="crosstab", params={"a": a.pk, "b": foreign.pk}
        )
    assert not AnalysisJob.objects.exists()


def test_the_page_shows_a_progress_bar_while_the_job_runs(ada_client, answered):
    a, b = _pair(answered)
    ada_client.get(reverse("analysis:dashboard", args=[answered.pk]))  # snapshot
    job, _ = jobs.job_request(
        survey=answered, kind="crosstab", params={"a": a.pk, "b": b.pk}
    )
    url = reverse("analysis:crosstab", args=[answered.pk])
    html = ada_client.get(url, {"a": a.pk, "b": b.pk}).content.decode()  # queued
    status = reverse("analysis:job_status", args=[answered.pk, job.pk])
    assert f'data-job-url="{status}"' in html
    assert "<progress" in html and "js/jobs.js" in html
