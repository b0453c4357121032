"""Raw-report exports as jobs (embedded defaults: the job runs in-process).

The researcher asks from the dashboard, a job writes the file in chunks with
progress, the dashboard then links to it; identical requests reuse the file
until the data change; files are removed when superseded or expired.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone

from surveys.analysis.exports import kinds as export_kinds
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db


ANSWERED_RESPONDENTS = 120  # the module's kept survey (conftest.py)


def _ask(client, survey, name):
    url = reverse("analysis:export_job_request", args=[survey.pk])
    return client.post(url, {"export": name})


def _streamed(client, name, survey) -> bytes:
    response = client.get(reverse(f"analysis:export_{name}", args=[survey.pk]))
    assert isinstance(response, StreamingHttpResponse)
    return b"".join(response.streaming_content)


def _download(client, survey, job) -> bytes:
    url = reverse("analysis:export_job_download", args=[survey.pk, job.pk])
    response = client.get(url)
    assert response.status_code == 200
    return b"".join(response.streaming_content)  # and closes the file


def test_asking_for_the_csv_runs_the_job_and_redirects_to_the_dashboard(
    ada_client, answered
):
    response = _ask(ada_client, answered, "reports_csv")
    assert response.status_code == 302
    assert response["Location"].endswith(
        reverse("analysis:dashboard", args=[answered.pk]) + "#exports"
    )
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    assert job.status == AnalysisJob.Status.DONE and job.progress == 1.0
    assert job.params["export"] == "reports_csv"


def test_the_csv_file_is_byte_for_byte_the_streamed_export(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    assert _download(ada_client, answered, job) == _streamed(
        ada_client, "reports_csv", answered
    )


def test_the_json_file_holds_the_streamed_document(ada_client, answered):
    _ask(ada_client, answered, "reports_json")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    written = json.loads(_download(ada_client, answered, job))
    streamed = json.loads(_streamed(ada_client, "reports_json", answered))
    written.pop("generated_at"), streamed.pop("generated_at")
    assert written == streamed
    assert len(written["reports"]) > 120


def test_the_download_is_an_attachment_with_the_kinds_name_and_type(
    ada_client, answered
):
    _ask(ada_client, answered, "reports_csv")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    url = reverse("analysis:export_job_download", args=[answered.pk, job.pk])
    response = ada_client.get(url)
    assert b"".join(response.streaming_content)  # and closes the file
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment")
    assert f"survey-{answered.pk}-reports-csv.csv" in disposition
    assert response["Cache-Control"] == "no-store"


def test_the_dashboard_links_to_the_written_file(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    html = ada_client.get(reverse("analysis:dashboard", args=[answered.pk])).content
    link = reverse("analysis:export_job_download", args=[answered.pk, job.pk])
    assert f'href="{link}"'.encode() in html


def test_the_dashboard_offers_the_job_not_the_streamed_download(ada_client, answered):
    html = ada_client.get(
        reverse("analysis:dashboard", args=[answered.pk])
    ).content.decode()
    request_url = reverse("analysis:export_job_request", args=[answered.pk])
    assert html.count(f'action="{request_url}"') == len(export_kinds.all_kinds())
    assert reverse("analysis:export_reports_csv", args=[answered.pk]) not in html


def test_a_queued_export_shows_its_progress_bar_on_the_dashboard(ada, ada_client):
    survey = make_survey(ada)
    job, _ = jobs.export_request(survey=survey, name="reports_csv")
    html = ada_client.get(reverse("analysis:dashboard", args=[survey.pk])).content
    status = reverse("analysis:job_status", args=[survey.pk, job.pk])
    assert f'data-job-url="{status}"'.encode() in html
    assert b"<progress" in html


def test_identical_requests_on_unchanged_data_reuse_the_file(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    first = AnalysisJob.objects.get(survey=answered, kind="export")
    _ask(ada_client, answered, "reports_csv")
    again = AnalysisJob.objects.get(survey=answered, kind="export")
    assert (again.pk, again.file.name) == (first.pk, first.file.name)


def test_a_new_submission_makes_a_new_file_and_removes_the_old(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    first = AnalysisJob.objects.get(survey=answered, kind="export")
    old_path = Path(first.file.path)
    simulate(answered, 5, seed=9)
    _ask(ada_client, answered, "reports_csv")
    (newer,) = AnalysisJob.objects.filter(survey=answered, kind="export")
    assert newer.pk != first.pk
    assert not old_path.exists()
    assert _download(ada_client, answered, newer) == _streamed(
        ada_client, "reports_csv", answered
    )


def test_an_edited_question_makes_a_new_file(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    question = answered.questions.first()
    question.text = "Reworded"
    question.save(update_fields=["text"])
    _ask(ada_client, answered, "reports_csv")
    (job,) = AnalysisJob.objects.filter(survey=answered, kind="export")
    assert b"Reworded" in _download(ada_client, answered, job)


def test_each_export_kind_keeps_its_own_file(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    _ask(ada_client, answered, "reports_json")
    kinds = AnalysisJob.objects.filter(survey=answered, kind="export")
    assert sorted(job.params["export"] for job in kinds) == [
        "reports_csv",
        "reports_json",
    ]
    assert all(Path(job.file.path).exists() for job in kinds)


def test_an_unknown_export_is_refused_with_a_message_and_nothing_stored(
    ada_client, answered
):
    response = _ask(ada_client, answered, "everything.zip")
    assert response.status_code == 400
    assert b"Pick one of the exports offered" in response.content
    assert not AnalysisJob.objects.filter(survey=answered).exists()


def test_the_file_lives_under_the_export_root(ada_client, answered, settings):
    _ask(ada_client, answered, "reports_csv")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    root = Path(settings.EXPORT_ROOT).resolve()
    assert root in Path(job.file.path).resolve().parents


def test_the_writer_records_progress_in_chunks(answered, monkeypatch):
    monkeypatch.setattr(export_kinds, "PROGRESS_EVERY_LINES", 50)
    shares: list[float] = []
    export_kinds.REPORTS_CSV.writer(answered, io.BytesIO(), shares.append)
    assert len(shares) > 3
    assert shares == sorted(shares) and shares[-1] == 1.0
    assert all(0 < share < 1 for share in shares[:-1])


def test_a_crosstab_job_url_does_not_download(ada_client, answered):
    job = AnalysisJob.objects.create(
        survey=answered, kind="crosstab", params={"a": 1, "b": 2}, watermark=0
    )
    url = reverse("analysis:export_job_download", args=[answered.pk, job.pk])
    assert ada_client.get(url).status_code == 404


def test_a_removed_file_answers_not_found(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    os.remove(job.file.path)
    url = reverse("analysis:export_job_download", args=[answered.pk, job.pk])
    assert ada_client.get(url).status_code == 404


def test_files_past_the_retention_period_are_purged(ada_client, answered, settings):
    _ask(ada_client, answered, "reports_csv")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    path = Path(job.file.path)
    later = timezone.now() + timedelta(hours=settings.EXPORT_RETENTION_HOURS + 1)
    assert jobs.export_purge(now=later) == 1
    assert not path.exists()
    assert not AnalysisJob.objects.filter(pk=job.pk).exists()


def test_files_within_the_retention_period_are_kept(ada_client, answered):
    _ask(ada_client, answered, "reports_csv")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    assert jobs.export_purge() == 0
    assert Path(job.file.path).exists()


def test_an_unfinished_file_left_by_a_killed_worker_is_purged(answered, settings):
    stray = Path(settings.EXPORT_ROOT) / f"survey-{answered.pk}" / "9-dead.csv.part"
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"record,")
    two_hours_ago = time.time() - 7200
    os.utime(stray, (two_hours_ago, two_hours_ago))
    jobs.export_purge()
    assert not stray.exists()


def test_a_job_left_running_by_a_killed_worker_is_written_again(answered):
    job, _ = jobs.export_request(survey=answered, name="reports_csv")
    AnalysisJob.objects.filter(pk=job.pk).update(status="running", progress=0.4)
    jobs.job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.DONE
    assert re.fullmatch(
        rf"survey-{answered.pk}/{job.pk}-[0-9a-f]{{16}}\.csv", job.file.name
    )


def _one_test_response(survey) -> None:
    """The owner's test-mode submission, through the ingestion service."""
    import uuid

    import numpy as np

    import ldp
    from surveys.collection.responses import ResponseIn, SentReport
    from surveys.collection.services import submission_ingest

    rng = np.random.default_rng(5)
    reports, plain = {}, {}
    for question in survey.questions.all():
        if question.is_private:
            mechanism = ldp.build(question.spec)
            truth = [[0]] if question.kind == "multi_select" else np.array([0])
            payload = mechanism.randomize(truth, rng).tolist()[0]
            reports[question.pk] = SentReport(question.spec_revision, payload)
        else:
            plain[question.pk] = 0
    submission_ingest(
        survey=survey,
        response=ResponseIn(
            idempotency_key=uuid.uuid4(),
            survey_revision=survey.revision,
            reports=reports,
            plain_answers=plain,
        ),
        is_test=True,
    )


def test_the_csv_with_test_responses_marks_them_and_the_plain_csv_leaves_them_out(
    ada_client, answered
):
    import csv

    from surveys.collection.models import Submission

    _one_test_response(answered)
    test_id = Submission.objects.get(is_test=True).public_id
    _ask(ada_client, answered, "reports_csv_with_test")
    job = AnalysisJob.objects.get(survey=answered, kind="export")
    rows = list(
        csv.DictReader(io.StringIO(_download(ada_client, answered, job).decode()))
    )
    marked = {r["submission_id"] for r in rows if r["is_test"] == "true"}
    assert marked == {test_id}
    assert {r["is_test"] for r in rows} == {"true", "false"}
    plain = _streamed(ada_client, "reports_csv", answered).decode()
    assert test_id not in plain and "is_test" not in plain.splitlines()[0]
