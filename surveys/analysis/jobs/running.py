"""Researcher-chosen analyses as background jobs: request, run, read back.

A request names an analysis (a cross-tab of two randomized questions, a
breakdown of one by a plain question, a regression (``regressions``) or
weighted estimates (``weights``)) and is tied to the survey's latest
results snapshot: the job reads only the reports up to that snapshot's
watermark, so these analyses advance in the same batches as the results (two
successive answers never isolate one respondent), and an identical request
reuses the stored job until the snapshot moves on.  A worker runs the job
(``tasks.run_analysis_job``) and records its progress; with no broker it runs
in the requesting process.  What is stored is the table's numbers and labels
as JSON, shared by every reader; each page writes them in its reader's
language (``crosstab_tables``, ``model_tables``).

An export (``export_request``) is a job too: a worker writes the file of one
registered export kind (``export_kinds``) under ``settings.EXPORT_ROOT``,
recording progress as it goes, and the owner downloads it from the dashboard.
It is tied to the data it was asked on (the survey's latest submission and
the questions' fingerprint): an identical request reuses the file until those
change.  A finished export replaces the previous file of its kind for the
survey, and ``export_purge`` removes files past ``EXPORT_RETENTION_HOURS``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import secrets
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone, translation

from surveys.analysis import wording
from surveys.analysis.exports import kinds as export_kinds
from surveys.analysis.jobs import (
    crosstabs,
    pilots,
    regressions,
    weights,
    weights_grouped,
)
from surveys.analysis.models import AnalysisJob, export_storage, job_find_or_create
from surveys.analysis.results import release, selectors
from surveys.analysis.results.cells import snapshot_cells
from surveys.analysis.results.objects import results_to_document
from surveys.authoring.models import Question, Survey

logger = logging.getLogger(__name__)

DONE, FAILED = AnalysisJob.Status.DONE, AnalysisJob.Status.FAILED
FINISHED = (DONE, FAILED)
JOB_DELAY_ENV = "DENIABLE_ANALYSIS_JOB_DELAY"  # test-only: seconds per step


class JobRefused(ValueError):
    """The request names questions that are not this survey's."""


def _step_delay() -> None:
    delay = float(os.environ.get(JOB_DELAY_ENV) or 0)
    if delay > 0:
        time.sleep(delay)


def job_request(
    *, survey: Survey, kind: str, params: dict[str, int]
) -> tuple[AnalysisJob, bool]:
    """(the job for this analysis of the survey's current results, created).

    An identical request on the same data finds the stored job (done, failed,
    or still running); a new job is created queued (the caller sends it to a
    worker with ``tasks.send_analysis_job``).
    """
    analyses = [AnalysisJob.Kind.CROSSTAB, AnalysisJob.Kind.BREAKDOWN]
    if kind not in analyses:
        raise JobRefused(f"kind is {kind!r}; allowed: {analyses}")
    ids = set(params.values())
    found = set(
        Question.objects.filter(survey=survey, pk__in=ids).values_list("pk", flat=True)
    )
    if found != ids:
        raise JobRefused("Pick questions of this survey.")
    snapshot = selectors.latest_snapshot(survey_id=survey.pk)
    watermark = snapshot.watermark if snapshot is not None else 0
    lookup = {"survey": survey, "kind": kind, "params": params, "watermark": watermark}
    return job_find_or_create(lookup)


def export_data_mark(survey: Survey) -> int:
    """The survey's released watermark (``results.release``; 0: nothing
    released): an export's data version, as its file stops there."""
    return release.released_watermark(survey_id=survey.pk)


def export_request(*, survey: Survey, name: str) -> tuple[AnalysisJob, bool]:
    """(the export job of kind ``name`` for the survey's current data, created).

    An identical request on unchanged data finds the stored job (done or still
    running); one that failed is asked again.  A new job is created queued (the
    caller sends it to a worker with ``tasks.send_analysis_job``).
    """
    if export_kinds.get(name) is None:
        names = [kind.name for kind in export_kinds.all_kinds()]
        raise JobRefused(f"Pick one of the exports offered: {', '.join(names)}.")
    definition = selectors.survey_definition(selectors.survey_questions(survey))
    lookup = {
        "survey": survey,
        "kind": AnalysisJob.Kind.EXPORT,
        "params": {"export": name, "definition": definition},
        "watermark": export_data_mark(survey),
    }
    AnalysisJob.objects.filter(**lookup, status=FAILED).delete()
    return job_find_or_create(lookup)


def latest_exports(survey: Survey) -> dict[str, AnalysisJob]:
    """The newest export job of each kind for the survey (one query)."""
    found: dict[str, AnalysisJob] = {}
    for job in AnalysisJob.objects.filter(
        survey=survey, kind=AnalysisJob.Kind.EXPORT
    ).order_by("-id"):
        found.setdefault(job.params.get("export", ""), job)
    return found


def _export_run(job: AnalysisJob, progress) -> None:
    kind = export_kinds.get(job.params.get("export", ""))
    if kind is None:
        _failed(job, wording.note(wording.EXPORT_NOT_OFFERED))
        return
    name = f"survey-{job.survey_id}/{job.pk}-{secrets.token_hex(8)}.{kind.extension}"
    final = Path(job.file.storage.path(name))
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_name(final.name + ".part")
    try:
        with partial.open("wb") as fileobj:
            kind.writer(job.survey, fileobj, progress)
        os.replace(partial, final)  # the file appears whole or not at all
    except wording.Refusal as why:  # e.g. a table too large for SPSS or Stata
        partial.unlink(missing_ok=True)
        _failed(job, why.note())
        return
    except Exception:
        logger.exception("export job %s could not write its file", job.pk)
        partial.unlink(missing_ok=True)
        _failed(job, wording.note(wording.EXPORT_NOT_WRITTEN))
        return
    job.file.name = name
    job.status, job.error, job.failure = DONE, "", None


def _export_supersede(job: AnalysisJob) -> None:
    """Remove the survey's older finished exports of the same kind, files too."""
    older = AnalysisJob.objects.filter(
        survey_id=job.survey_id,
        kind=AnalysisJob.Kind.EXPORT,
        params__export=job.params.get("export"),
        status__in=FINISHED,
        id__lt=job.pk,
    )
    for stale in older:
        _export_delete(stale)


def _export_delete(job: AnalysisJob) -> None:
    if job.file:
        job.file.delete(save=False)
    job.delete()


def export_purge(*, now=None) -> int:
    """Remove export files (and their jobs) older than the retention period,
    and files no job refers to; return how many jobs were removed."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.EXPORT_RETENTION_HOURS)
    expired = AnalysisJob.objects.filter(
        kind=AnalysisJob.Kind.EXPORT, status__in=FINISHED, finished_at__lt=cutoff
    )
    removed = 0
    for job in expired:
        _export_delete(job)
        removed += 1
    root = Path(export_storage().location)
    if root.is_dir():
        kept = set(
            AnalysisJob.objects.filter(kind=AnalysisJob.Kind.EXPORT)
            .exclude(file="")
            .values_list("file", flat=True)
        )
        # Left by a worker killed mid-write, or by a job deleted with its survey.
        orphan_before = (now - timedelta(hours=1)).timestamp()
        for path in root.glob("survey-*/*"):
            name = path.relative_to(root).as_posix()
            if name not in kept and path.stat().st_mtime < orphan_before:
                path.unlink(missing_ok=True)
    return removed


def _progress(job: AnalysisJob):
    def record(share: float) -> None:
        AnalysisJob.objects.filter(pk=job.pk).update(progress=share)
        _step_delay()

    return record


def _share(value: float) -> float | None:
    """A share as stored in JSON (None where it is not finite)."""
    return float(value) if math.isfinite(value) else None


def _question(question: Question) -> dict[str, str]:
    return {"text": question.text, "kind": question.kind}


def _crosstab_view(table: crosstabs.CrossTab) -> dict[str, Any]:
    """The cross-tab as stored: numbers and the site's own labels in English,
    written for each reader by ``crosstab_tables.crosstab_shown``."""
    result = table.result
    rows = []
    for i, label in enumerate(table.labels_a):
        cells = [
            {
                "column": table.labels_b[j],
                "estimate": _share(result.estimate[i, j]),
                "low": _share(table.low[i, j]),
                "high": _share(table.high[i, j]),
                "consistent": _share(table.consistent[i, j]),
            }
            for j in range(len(table.labels_b))
        ]
        rows.append({"label": label, "cells": cells})
    return {
        "crosstab": {
            "result": {"n": int(result.n)},
            "excluded": table.excluded,
            "question_a": _question(table.question_a),
            "question_b": _question(table.question_b),
            "labels_b": table.labels_b,
        },
        "rows": rows,
    }


def _breakdown_view(result: crosstabs.Breakdown) -> dict[str, Any]:
    """The breakdown as stored: numbers and the site's own labels in English,
    written for each reader by ``crosstab_tables.breakdown_shown``."""
    strata = []
    for stratum in result.strata:
        rows = [
            {
                "label": label,
                "estimate": _share(est),
                "low": _share(low),
                "high": _share(high),
                "consistent": _share(fixed),
            }
            for label, est, low, high, fixed in zip(
                result.labels,
                stratum.estimate,
                stratum.low,
                stratum.high,
                stratum.consistent,
                strict=False,
            )
        ]
        strata.append({"stratum": dataclasses.asdict(stratum), "rows": rows})
    return {
        "result": {
            "question": _question(result.question),
            "by": _question(result.by),
        },
        "strata": strata,
    }


# What a finished analysis job saves.
SAVED = ["status", "error", "failure", "result", "progress", "finished_at"]

# Kinds whose result is computed from the survey and the job's params up to its
# watermark: (compute, the refusal it raises when the data do not allow it).
MODEL_JOBS: dict[str, tuple[Any, type[ValueError]]] = {
    AnalysisJob.Kind.REGRESSION: (
        regressions.regression_result,
        regressions.RegressionRefused,
    ),
    AnalysisJob.Kind.WEIGHTED: (
        weights_grouped.weighted_result,
        weights.WeightingRefused,
    ),
}


def _failed(job: AnalysisJob, failure: wording.Note) -> None:
    """Mark ``job`` failed: why, as a note (worded for each reader when shown)
    and in English (``error``, for plain-text answers and logs)."""
    job.status, job.failure = FAILED, failure
    job.error = wording.english(failure)


def job_run(*, job_id: int) -> AnalysisJob | None:
    """Run a queued job and store its table (or why it is not possible).

    Safe to run twice: a finished job is left as it is; a job whose worker
    died is started again from the beginning.  A stored result is shared by
    every reader, so it is written in the source language whatever language
    the request that ran it (with no broker) was read in.
    """
    with translation.override(settings.LANGUAGE_CODE):
        try:
            return _job_run(job_id=job_id)
        except Exception:
            # Not a refusal: a fault.  The traceback goes to the log; the page
            # says only that it failed (never the exception's text).
            logger.exception("analysis job %s failed", job_id)
            job = AnalysisJob.objects.filter(pk=job_id).first()
            if job is None:
                return None
            _failed(job, wording.note(wording.JOB_FAILED))
            job.result, job.progress, job.finished_at = None, 1.0, timezone.now()
            job.save(
                update_fields=[
                    "status",
                    "error",
                    "failure",
                    "result",
                    "progress",
                    "finished_at",
                ]
            )
            return job


def _job_run(*, job_id: int) -> AnalysisJob | None:
    job = AnalysisJob.objects.filter(pk=job_id).select_related("survey").first()
    if job is None or job.status in FINISHED:
        return job
    AnalysisJob.objects.filter(pk=job.pk).update(
        status=AnalysisJob.Status.RUNNING, progress=0.05
    )
    _step_delay()
    progress = _progress(job)
    if job.kind == AnalysisJob.Kind.EXPORT:
        _export_run(job, progress)
        job.progress, job.finished_at = 1.0, timezone.now()
        job.save(
            update_fields=[
                "status",
                "error",
                "failure",
                "file",
                "progress",
                "finished_at",
            ]
        )
        if job.status == DONE:
            _export_supersede(job)
        return job
    if job.kind == AnalysisJob.Kind.PILOT:
        document = results_to_document(pilots.pilot_results(job.survey, job.params))
        job.status, job.error, job.result = DONE, "", document
        job.progress, job.finished_at = 1.0, timezone.now()
        job.save(update_fields=SAVED)
        return job
    if job.kind in MODEL_JOBS:
        compute, refused = MODEL_JOBS[job.kind]
        try:
            result = compute(
                job.survey, job.params, upto=job.watermark, progress=progress
            )
        except refused as why:
            _failed(job, why.note())
            job.result = None
        else:
            job.status, job.error, job.failure, job.result = DONE, "", None, result
        job.progress, job.finished_at = 1.0, timezone.now()
        job.save(update_fields=SAVED)
        return job
    questions = {q.pk: q for q in job.survey.questions.all()}
    try:
        if job.kind == AnalysisJob.Kind.CROSSTAB:
            table = crosstabs.crosstab(
                questions[job.params["a"]],
                questions[job.params["b"]],
                upto=job.watermark,
                progress=progress,
            )
            result = _crosstab_view(table)
        else:
            breakdown = crosstabs.breakdown(
                questions[job.params["q"]],
                questions[job.params["by"]],
                upto=job.watermark,
                progress=progress,
                cells=snapshot_cells(survey_id=job.survey_id, watermark=job.watermark),
            )
            result = _breakdown_view(breakdown)
    except crosstabs.CrossTabUnavailable as refused:
        _failed(job, refused.note())
        job.result = None
    else:
        job.status, job.error, job.failure, job.result = DONE, "", None, result
    job.progress, job.finished_at = 1.0, timezone.now()
    job.save(update_fields=SAVED)
    return job
