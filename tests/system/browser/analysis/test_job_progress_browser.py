"""A long background analysis in Chromium: a progress bar, then the result.

A real Celery worker (through a Redis of the test's own) runs the job slowly;
the page polls its progress and shows the stored table when it is done.
Screenshots are saved under test-artifacts/ for review.
"""

from __future__ import annotations

import re
import time

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


def test_long_crosstab_job_shows_progress_then_the_stored_table(
    live_server, browser, django_user_model, start_process, test_database_url, own_redis
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = make_survey(ada)
    simulate(survey, 200)
    snapshots.snapshot_refresh(survey_id=survey.pk)
    by = {q.spec["mechanism"]: q for q in survey.questions.filter(is_private=True)}
    a, b = by["warner"], by["ordinal"]
    worker = start_worker(
        start_process,
        test_database_url,
        own_redis.url(),
        DENIABLE_ANALYSIS_JOB_DELAY="2",  # each step of the job takes 2 s more
    )
    page, problems = _signed_in_page(browser, live_server)
    url = reverse("analysis:crosstab", args=[survey.pk])
    with broker(own_redis.url()):  # the live server sends the job to the worker
        page.goto(f"{live_server.url}{url}?a={a.pk}&b={b.pk}")
        bar = page.locator("progress[data-job-progress]")
        sync_api.expect(bar).to_be_visible()
        assert page.locator('[data-field="cell"]').count() == 0
        assert float(bar.get_attribute("value")) <= 0.05  # rendered as queued
        deadline = time.monotonic() + 60
        seen = 0.0
        while time.monotonic() < deadline and seen <= 0.05:
            if not bar.count():
                break
            seen = max(seen, float(bar.evaluate("b => b.value")))
            time.sleep(0.2)
        assert seen > 0.05, worker.output()  # the bar moved while the job ran
        if bar.count():
            status = page.locator("[data-job-status]")
            sync_api.expect(status).to_have_text(re.compile("running|done"))
        ARTIFACTS.mkdir(exist_ok=True)
        if bar.count():
            page.screenshot(path=str(ARTIFACTS / "crosstab-job-progress.png"))
        sync_api.expect(page.locator('[data-field="cell"]').first).to_be_visible(
            timeout=60_000
        )
    page.screenshot(path=str(ARTIFACTS / "crosstab-job-done.png"), full_page=True)
    assert 'data-field="crosstab-n">200<' in page.content()
    job = AnalysisJob.objects.get(survey=survey)
    assert job.status == AnalysisJob.Status.DONE
    assert "run_analysis_job" in worker.output()
    assert problems == []
