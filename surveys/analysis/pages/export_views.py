"""Researchers' downloads: estimates, raw reports, the design card, export jobs'
files and the per-respondent datasets.

Every download goes through the survey's access check (404 for anyone who may
not view it); files are sent with ``no-store`` and as attachments.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Iterator

from django.contrib.auth.decorators import login_required
from django.http import (
    Http404,
    HttpResponse,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from surveys.accounts import audit
from surveys.analysis import replica
from surveys.analysis.exports import (
    datasets,
    design,
    methods,
    raw_reports,
    stat_files,
)
from surveys.analysis.exports import estimates as exports
from surveys.analysis.exports import kinds as export_kinds
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob
from surveys.analysis.pages.job_views import job_sent, refused
from surveys.analysis.pages.readers import (
    results_computing,
    survey_for,
    survey_with_results,
)
from surveys.analysis.reading import latest_results

FILE_CHUNK_BYTES = 256 * 1024


# --- exports ------------------------------------------------------------------------
def _filename(survey, suffix: str) -> str:
    return f"survey-{survey.pk}-{suffix}"


def _exported(request, survey, response, name: str):
    """A download of the survey's data: recorded in the audit log, then sent."""
    audit.record(request.user, audit.Action.EXPORT, survey, name)
    return _attachment(response, name)


def _attachment(response, name: str):
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_GET
def export_estimates_csv(request, pk: int):
    survey, results = survey_with_results(request, pk)
    if results is None:
        return results_computing()
    # A byte-order mark first, so spreadsheets read the file as UTF-8.
    body = "\ufeff" + "".join(exports.estimates_csv(results))
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    return _exported(request, survey, response, _filename(survey, "estimates.csv"))


@login_required
@require_GET
def export_estimates_json(request, pk: int):
    survey, results = survey_with_results(request, pk)
    if results is None:
        return results_computing()
    document = exports.estimates_document(results)
    response = JsonResponse(document, json_dumps_params={"ensure_ascii": False})
    return _exported(request, survey, response, _filename(survey, "estimates.json"))


@login_required
@require_GET
def export_reports_csv(request, pk: int):
    survey = survey_for(request, pk)
    latest_results(survey)  # the release the file stops at, brought up to date
    response = StreamingHttpResponse(
        replica.streamed(survey.pk, raw_reports.reports_csv(survey)),
        content_type="text/csv; charset=utf-8",
    )
    return _exported(request, survey, response, _filename(survey, "reports.csv"))


@login_required
@require_GET
def export_reports_json(request, pk: int):
    survey = survey_for(request, pk)
    latest_results(survey)  # the release the file stops at, brought up to date
    response = StreamingHttpResponse(
        replica.streamed(survey.pk, raw_reports.reports_json(survey)),
        content_type="application/json",
    )
    return _exported(request, survey, response, _filename(survey, "reports.json"))


@login_required
@require_POST
def export_job_request(request, pk: int):
    """Ask for an export file (POST ``export=<kind>``): a worker writes it.

    An identical request on unchanged data reuses the job; the dashboard then
    shows its progress and, once written, the download link.
    """
    survey = survey_for(request, pk)
    latest_results(survey)  # the release the file stops at, brought up to date
    try:
        job, created = jobs.export_request(
            survey=survey, name=request.POST.get("export", "")
        )
    except jobs.JobRefused as refusal:
        return refused(str(refusal))
    job_sent(job, created, reread=False)
    return redirect(f"{reverse('analysis:dashboard', args=[survey.pk])}#exports")


@login_required
@require_GET
def export_job_download(request, pk: int, job_pk: int):
    """The file an export job wrote, for the survey's owner only."""
    survey = survey_for(request, pk)
    job = get_object_or_404(
        AnalysisJob,
        pk=job_pk,
        survey=survey,
        kind=AnalysisJob.Kind.EXPORT,
        status=AnalysisJob.Status.DONE,
    )
    kind = export_kinds.get(job.params.get("export", ""))
    if kind is None or not job.file or not job.file.storage.exists(job.file.name):
        raise Http404("This export has been removed; ask for it again.")
    response = StreamingHttpResponse(
        _file_chunks(job.file.path), content_type=kind.content_type
    )
    response["Content-Length"] = str(job.file.size)
    return _exported(request, survey, response, kind.filename(survey))


def _file_chunks(path: str) -> Iterator[bytes]:
    """The file's bytes, opened only once the server starts sending them."""
    with open(path, "rb") as handle:
        while chunk := handle.read(FILE_CHUNK_BYTES):
            yield chunk


@login_required
@require_GET
def export_methods_txt(request, pk: int):
    """The methods paragraph for a paper, in English, as plain text."""
    survey, results = survey_with_results(request, pk)
    if results is None:
        return results_computing()
    response = HttpResponse(
        methods.methods_text(results), content_type="text/plain; charset=utf-8"
    )
    return _exported(request, survey, response, _filename(survey, "methods.txt"))


@login_required
@require_GET
def export_design(request, pk: int):
    survey = survey_for(request, pk)
    response = HttpResponse(
        json.dumps(design.design_card(survey), ensure_ascii=False, indent=2),
        content_type="application/json",
    )
    return _exported(request, survey, response, _filename(survey, "design.json"))


# --- per-respondent datasets (surveys/analysis/exports/datasets.py) -----------
FILE_CHUNK = 1 << 16


def _spooled(writer, survey):
    """Write to a temporary file (pyreadstat writes whole files), then stream it."""
    with tempfile.TemporaryFile() as spooled:
        writer(survey, spooled)
        spooled.seek(0)
        while chunk := spooled.read(FILE_CHUNK):
            yield chunk


@login_required
@require_GET
def export_dataset(request, pk: int, fmt: str):
    survey = survey_for(request, pk)
    latest_results(survey)  # the release the file stops at, brought up to date
    writer, suffix, content_type = datasets.DATASET_FILES[fmt]
    if fmt in {"wide_csv", "wide_csv_bom"}:
        lines = replica.streamed(
            survey.pk, datasets.wide_csv_lines(survey, bom=fmt == "wide_csv_bom")
        )
        body = (line.encode("utf-8") for line in lines)
        response = StreamingHttpResponse(body, content_type=content_type)
    elif fmt in {"sav", "dta"}:
        try:  # refused before the response starts, with the reason
            with replica.released(survey.pk):
                stat_files.stat_file_size_check(survey)
        except stat_files.StatFileTooLarge as why:
            return refused(why.shown())
        response = StreamingHttpResponse(
            replica.streamed(survey.pk, _spooled(writer, survey)),
            content_type=content_type,
        )
    else:  # the codebook and the R script: small, one per question
        buffer = io.BytesIO()
        with replica.released(survey.pk):
            writer(survey, buffer)
        response = HttpResponse(buffer.getvalue(), content_type=content_type)
    return _exported(request, survey, response, _filename(survey, suffix))
