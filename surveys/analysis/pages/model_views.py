"""Researchers' model pages: regression and weighted estimates, with their CSV.

Both are GET forms, like cross-tabs and the pilot: a valid request finds or
queues a background job (``jobs.job_run``) on the survey's current results and
the same address shows its progress, then its table.  Every page goes through
``access.survey_get_for`` (VIEW access; 404 for anyone else).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET

from ldp.mechanisms.about import LINEAR
from surveys.analysis import replica
from surveys.analysis.jobs import regressions, weights, weights_r
from surveys.analysis.models import AnalysisJob
from surveys.analysis.pages import model_tables
from surveys.analysis.pages.dashboard import labels_shown
from surveys.analysis.pages.job_views import finished, job_context, job_sent, refused
from surveys.analysis.reading import latest_results
from surveys.authoring import access
from surveys.authoring.catalogue import mechanism_label_shown


def _survey(request, pk: int):
    return access.survey_get_for(user=request.user, pk=pk, need=access.VIEW)


def _pk(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdecimal() and len(text) <= 10 else None


def _regression_job(request, survey) -> AnalysisJob:
    """The job the query asks for (RegressionRefused: why not)."""
    outcome = _pk(request.GET.get("outcome", ""))
    covariates = [_pk(value) for value in request.GET.getlist("covariate")]
    if any(pk is None for pk in covariates):
        raise regressions.RegressionRefused(
            gettext_noop("Pick covariates among the ones listed.")
        )
    chosen = [pk for pk in covariates if pk is not None]
    references = {pk: request.GET.get(f"ref-{pk}", "") for pk in chosen}
    latest_results(survey)  # brings the snapshot (the job's data) up to date
    job, created = regressions.regression_request(
        survey=survey, outcome=outcome, covariates=chosen, references=references
    )
    return job_sent(job, created)


@login_required
@require_GET
def survey_regression(request, pk: int):
    """A regression of a protected answer on unprotected ones."""
    survey = _survey(request, pk)
    covariates = regressions.covariate_candidates(survey)
    chosen = set(request.GET.getlist("covariate"))
    context: dict = {
        "survey": survey,
        # Each candidate outcome with whether its regression is linear (a
        # number) or logistic (yes/no): what its mechanism declares.
        "outcomes": [
            (q, regressions.outcome_model(q) == LINEAR)
            for q in regressions.outcome_candidates(survey)
        ],
        "covariates": [
            {
                "question": q,
                "checked": str(q.pk) in chosen,
                "levels": regressions.levels(q),
                "reference": request.GET.get(f"ref-{q.pk}", ""),
            }
            for q in covariates
        ],
        "selected_outcome": request.GET.get("outcome", ""),
        "minimum": regressions.CASES_PER_COEFFICIENT,
        "query": request.GET.urlencode(),
    }
    if "outcome" in request.GET:
        try:
            job = _regression_job(request, survey)
        except regressions.RegressionRefused as refusal:
            context["regression_error"] = refusal.shown()
        else:
            job_context(context, job, "regression")
    if context.get("regression"):
        result = context["regression"]
        context["regression_rows"] = model_tables.regression_rows(result)
        context["regression_mechanism"] = mechanism_label_shown(
            result["outcome"]["mechanism"]
        )
        test = result.get("lr_test")
        context["lr_p"] = model_tables.p_value(test["pvalue"] if test else None)
    return render(request, "analysis/regression.html", context)


def _csv(survey, job: AnalysisJob, lines, suffix: str) -> HttpResponse:
    response = HttpResponse("".join(lines), content_type="text/csv; charset=utf-8")
    name = f"survey-{survey.pk}-{suffix}-{job.pk}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


def _job_csv(
    request, pk: int, *, asks: str, missing: str, job_for, refusal, table, name
):
    """The CSV of the finished job the query names (400 with the reason when
    it is refused or not asked for, 503 while it is being computed)."""
    survey = _survey(request, pk)
    if asks not in request.GET:
        return refused(missing)
    try:
        job = job_for(request, survey)
    except refusal as refusal_error:
        return refused(str(refusal_error))
    waiting = finished(job)
    if waiting is not None:
        return waiting
    return _csv(survey, job, table(job.result), name)


@login_required
@require_GET
def regression_csv(request, pk: int):
    """The coefficient table of the regression the query names, as CSV."""
    return _job_csv(
        request,
        pk,
        asks="outcome",
        missing="Choose the outcome and covariates on the regression page.",
        job_for=_regression_job,
        refusal=regressions.RegressionRefused,
        table=model_tables.regression_csv,
        name="regression",
    )


def _margins(request, survey) -> dict[int, list[float]]:
    """The population shares the query gives (WeightingRefused: why not)."""
    margins = {}
    for question in weights.margin_candidates(survey):
        text = request.GET.get(f"margin-{question.pk}", "")
        shares = weights.parse_margin(question, text)
        if shares is not None:
            margins[question.pk] = shares
    return margins


def _weights_job(request, survey) -> AnalysisJob:
    """The job the query asks for (WeightingRefused: why not)."""
    margins = _margins(request, survey)
    latest_results(survey)  # brings the snapshot (the job's data) up to date
    job, created = weights.weighted_request(survey=survey, margins=margins)
    return job_sent(job, created)


@login_required
@require_GET
def survey_weights(request, pk: int):
    """Weighted estimates of every protected question, to population margins."""
    survey = _survey(request, pk)
    context: dict = {
        "survey": survey,
        "fields": [
            {
                "question": q,
                "name": f"margin-{q.pk}",
                "value": request.GET.get(f"margin-{q.pk}", ""),
                "labels": labels_shown(q.kind, weights.answer_labels(q)),
            }
            for q in weights.margin_candidates(survey)
        ],
        "query": request.GET.urlencode(),
    }
    if "weigh" in request.GET:
        try:
            job = _weights_job(request, survey)
        except weights.WeightingRefused as refusal:
            context["weighted_error"] = refusal.shown()
        else:
            job_context(context, job, "weighted")
    if context.get("weighted"):
        context["weighted_questions"] = model_tables.weighted_rows(context["weighted"])
        context["margin_tables"] = model_tables.margin_rows(context["weighted"])
    return render(request, "analysis/weights.html", context)


@login_required
@require_GET
def weights_csv(request, pk: int):
    """The weighted and unweighted estimates the query names, as CSV."""
    return _job_csv(
        request,
        pk,
        asks="weigh",
        missing="Give the population margins on the weights page.",
        job_for=_weights_job,
        refusal=weights.WeightingRefused,
        table=model_tables.weighted_csv,
        name="weighted",
    )


@login_required
@require_GET
def weights_script(request, pk: int):
    """An R script that rebuilds the weights the query names from the wide CSV
    and recomputes every weighted estimate (``weights_r.weights_r_script``);
    400 with the reason for margins the weights page would refuse."""
    survey = _survey(request, pk)
    try:
        margins = _margins(request, survey)
    except weights.WeightingRefused as refusal_error:
        return refused(str(refusal_error))
    if not margins:
        return refused("Give the population margins on the weights page.")
    with replica.released(survey.pk):
        script = weights_r.weights_r_script(survey, margins)
    response = HttpResponse(script, content_type="text/plain; charset=utf-8")
    name = f"survey-{survey.pk}-weights.R"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response
