"""Researcher-chosen analyses as background jobs: request, run, read back.

A request names an analysis (a cross-tab of two randomized questions, or a
breakdown of one by a plain question) and is tied to the survey's latest
results snapshot: the job reads only the reports up to that snapshot's
watermark, so these analyses advance in the same batches as the results (two
successive answers never isolate one respondent), and an identical request
reuses the stored job until the snapshot moves on.  A worker runs the job
(``tasks.run_analysis_job``) and records its progress; with no broker it runs
in the requesting process.  What is stored is the formatted table the page
shows, as JSON.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from surveys.analysis import crosstabs, dashboard, selectors
from surveys.analysis.models import AnalysisJob
from surveys.authoring.models import Question, Survey

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
    if kind not in AnalysisJob.Kind.values:
        raise JobRefused(f"kind is {kind!r}; allowed: {AnalysisJob.Kind.values}")
    ids = set(params.values())
    found = set(
        Question.objects.filter(survey=survey, pk__in=ids).values_list("pk", flat=True)
    )
    if found != ids:
        raise JobRefused("Pick questions of this survey.")
    snapshot = selectors.latest_snapshot(survey_id=survey.pk)
    watermark = snapshot.watermark if snapshot is not None else 0
    lookup = {"survey": survey, "kind": kind, "params": params, "watermark": watermark}
    job = AnalysisJob.objects.filter(**lookup).first()
    if job is not None:
        return job, False
    try:
        with transaction.atomic():
            return AnalysisJob.objects.create(**lookup), True
    except IntegrityError:  # an identical request made it first
        return AnalysisJob.objects.get(**lookup), False


def _progress(job: AnalysisJob):
    def record(share: float) -> None:
        AnalysisJob.objects.filter(pk=job.pk).update(progress=share)
        _step_delay()

    return record


def _crosstab_view(table: crosstabs.CrossTab) -> dict[str, Any]:
    pct = dashboard.percent
    result = table.result
    rows = []
    for i, label in enumerate(table.labels_a):
        cells = [
            {
                "column": table.labels_b[j],
                "estimate": pct(result.estimate[i, j]),
                "low": pct(table.low[i, j]),
                "high": pct(table.high[i, j]),
                "consistent": pct(table.consistent[i, j]),
            }
            for j in range(len(table.labels_b))
        ]
        rows.append({"label": label, "cells": cells})
    return {
        "crosstab": {
            "result": {"n": int(result.n)},
            "excluded": table.excluded,
            "question_a": {"text": table.question_a.text},
            "question_b": {"text": table.question_b.text},
            "labels_b": table.labels_b,
        },
        "rows": rows,
    }


def _breakdown_view(result: crosstabs.Breakdown) -> dict[str, Any]:
    pct, num = dashboard.percent, dashboard.number
    strata = []
    for stratum in result.strata:
        rows = [
            {
                "label": label,
                "estimate": pct(est),
                "low": pct(low),
                "high": pct(high),
                "consistent": pct(fixed),
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
        strata.append(
            {
                "stratum": dataclasses.asdict(stratum),
                "rows": rows,
                "mean": num(stratum.mean),
                "mean_low": num(stratum.mean_low),
                "mean_high": num(stratum.mean_high),
            }
        )
    return {
        "result": {
            "question": {"text": result.question.text},
            "by": {"text": result.by.text},
        },
        "strata": strata,
    }


def job_run(*, job_id: int) -> AnalysisJob | None:
    """Run a queued job and store its table (or why it is not possible).

    Safe to run twice: a finished job is left as it is; a job whose worker
    died is started again from the beginning.
    """
    job = AnalysisJob.objects.filter(pk=job_id).select_related("survey").first()
    if job is None or job.status in FINISHED:
        return job
    AnalysisJob.objects.filter(pk=job.pk).update(
        status=AnalysisJob.Status.RUNNING, progress=0.05
    )
    _step_delay()
    questions = {q.pk: q for q in job.survey.questions.all()}
    progress = _progress(job)
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
            )
            result = _breakdown_view(breakdown)
    except crosstabs.CrossTabUnavailable as refused:
        job.status, job.error, job.result = FAILED, str(refused), None
    else:
        job.status, job.error, job.result = DONE, "", result
    job.progress, job.finished_at = 1.0, timezone.now()
    job.save(update_fields=["status", "error", "result", "progress", "finished_at"])
    return job
