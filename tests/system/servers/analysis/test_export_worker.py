"""A real Celery worker writes a raw-report export job's file through real Redis."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from surveys.analysis import tasks
from surveys.analysis.exports import raw_reports
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob
from tests.surveys.analysis.conftest import FAMILIES, broker, make_survey, submit_bulk
from tests.system.servers.analysis.test_worker import start_worker, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _job(pk: int) -> AnalysisJob:
    return AnalysisJob.objects.get(pk=pk)


def test_worker_writes_the_export_file_with_progress_and_it_equals_the_stream(
    researcher, start_process, test_database_url, own_redis
):
    survey = make_survey(researcher, [FAMILIES[2], FAMILIES[7]])
    submit_bulk(survey, 400)
    worker = start_worker(
        start_process,
        test_database_url,
        own_redis.url(),
        DENIABLE_ANALYSIS_JOB_DELAY="1",  # each progress step lasts a second
    )
    job, created = jobs.export_request(survey=survey, name="reports_csv")
    assert created
    with broker(own_redis.url()):
        assert tasks.send_analysis_job(job.pk)

    wait_for(
        lambda: _job(job.pk).status == AnalysisJob.Status.RUNNING,
        worker,
        what="the worker starting the export",
    )
    running = _job(job.pk)
    assert 0 < running.progress < 1 and not running.file
    wait_for(
        lambda: _job(job.pk).status == AnalysisJob.Status.DONE,
        worker,
        what="the worker writing the export",
    )
    done = _job(job.pk)
    assert done.progress == 1.0
    path = Path(done.file.path)
    assert Path(settings.EXPORT_ROOT).resolve() in path.resolve().parents
    assert path.read_bytes() == "".join(raw_reports.reports_csv(survey)).encode()
    assert "run_analysis_job" in worker.output()
