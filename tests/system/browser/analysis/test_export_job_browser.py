"""A raw-report export job in Chromium: the button, a progress bar, then the link.

A real Celery worker (through a Redis of the test's own) writes the file
slowly; the dashboard polls the job and shows the download link when the file
is written.  Screenshots are saved under test-artifacts/ for review.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.analysis.models import AnalysisJob
from surveys.analysis.tallies import snapshots
from tests.surveys.analysis.conftest import broker
from tests.surveys.analysis.dashboard_support import PASSWORD, make_survey, simulate
from tests.system.browser.analysis.test_dashboard_browser import (
    ARTIFACTS,
    _signed_in_page,
)
from tests.system.servers.analysis.test_worker import start_worker

pytestmark = pytest.mark.django_db(transaction=True)
sync_api = pytest.importorskip("playwright.sync_api")


def test_export_button_shows_progress_then_the_download_link(
    live_server, browser, django_user_model, start_process, test_database_url, own_redis
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = make_survey(ada)
    simulate(survey, 200)
    snapshots.snapshot_refresh(survey_id=survey.pk)
    worker = start_worker(
        start_process,
        test_database_url,
        own_redis.url(),
        DENIABLE_ANALYSIS_JOB_DELAY="2",  # each progress step lasts 2 s more
    )
    page, problems = _signed_in_page(browser, live_server)
    url = reverse("analysis:dashboard", args=[survey.pk])
    csv_row = '[data-export="reports_csv"]'
    with broker(own_redis.url()):  # the live server sends the job to the worker
        page.goto(f"{live_server.url}{url}")
        assert page.locator(f"{csv_row} [data-export-download]").count() == 0
        page.locator(f"{csv_row} button").click()
        bar = page.locator(f"{csv_row} progress[data-job-progress]")
        sync_api.expect(bar).to_be_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "export-job-progress.png"))
        link = page.locator(f"{csv_row} [data-export-download]")
        sync_api.expect(link).to_be_visible(timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "export-job-done.png"), full_page=True)
    job = AnalysisJob.objects.get(survey=survey, kind="export")
    assert job.status == AnalysisJob.Status.DONE
    expected = reverse("analysis:export_job_download", args=[survey.pk, job.pk])
    assert link.get_attribute("href") == expected
    with page.expect_download() as download:
        link.click()
    assert download.value.suggested_filename == f"survey-{survey.pk}-reports-csv.csv"
    assert "run_analysis_job" in worker.output()
    assert problems == []
