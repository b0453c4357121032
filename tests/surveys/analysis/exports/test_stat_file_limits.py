"""SPSS and Stata files above ``STAT_FILE_MAX_CELLS`` (rows × columns) are
refused with the reason, as a job and as a download; the CSV stays offered."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from surveys.analysis.exports import dataset_columns, dataset_estimates, datasets
from surveys.analysis.models import AnalysisJob
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db

FORMATS = [("wide_sav", "sav"), ("wide_dta", "dta")]


@pytest.fixture
def answered(ada):
    survey = make_survey(ada)
    simulate(survey, 30)
    return survey


def _cells(survey) -> int:
    """The file's cells: 30 rows × the wide table's columns and the estimate
    columns the released results add."""
    header = next(datasets.wide_csv_lines(survey))
    found = dataset_columns.blocks(survey)
    extra = sum(
        len(e.variables) for e in dataset_estimates.estimate_columns(survey, found)
    )
    return 30 * (len(header.strip().split(",")) + extra)


@pytest.mark.parametrize(("job_name", "fmt"), FORMATS)
def test_a_job_above_the_limit_fails_saying_why_on_the_exports_page(
    ada_client, answered, job_name, fmt
):
    with override_settings(STAT_FILE_MAX_CELLS=_cells(answered) - 1):
        url = reverse("analysis:export_job_request", args=[answered.pk])
        ada_client.post(url, {"export": job_name})
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    assert job.status == AnalysisJob.Status.FAILED and not job.file
    assert "STAT_FILE_MAX_CELLS" in job.error and "wide CSV" in job.error
    page = ada_client.get(reverse("analysis:dashboard", args=[answered.pk]))
    assert "more than the" in page.content.decode()


@pytest.mark.parametrize(("job_name", "fmt"), FORMATS)
def test_a_job_at_the_limit_writes_the_file(ada_client, answered, job_name, fmt):
    with override_settings(STAT_FILE_MAX_CELLS=_cells(answered)):
        url = reverse("analysis:export_job_request", args=[answered.pk])
        ada_client.post(url, {"export": job_name})
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    assert job.status == AnalysisJob.Status.DONE and job.file


@pytest.mark.parametrize(("job_name", "fmt"), FORMATS)
def test_a_download_above_the_limit_is_refused_with_the_reason(
    ada_client, answered, job_name, fmt
):
    with override_settings(STAT_FILE_MAX_CELLS=_cells(answered) - 1):
        response = ada_client.get(reverse(f"analysis:export_{fmt}", args=[answered.pk]))
    assert response.status_code == 400
    assert "Download the wide CSV instead" in response.content.decode()


def test_the_wide_csv_is_offered_above_the_limit(ada_client, answered):
    with override_settings(STAT_FILE_MAX_CELLS=1):
        response = ada_client.get(
            reverse("analysis:export_wide_csv", args=[answered.pk])
        )
        lines = b"".join(response.streaming_content).decode().splitlines()
    assert response.status_code == 200 and len(lines) == 31
