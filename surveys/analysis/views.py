"""Researchers' pages: dashboard, cross-tabs, privacy and exports.

Every survey page goes through ``survey_get_for_owner`` (404 for anyone
else's survey) behind ``login_required``; views only read and format.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from surveys.accounts.sessions import passive
from surveys.analysis import charts, crosstabs, dashboard, exports, jobs, tasks
from surveys.analysis.models import AnalysisJob
from surveys.analysis.privacy import survey_privacy_view
from surveys.analysis.reading import latest_results
from surveys.authoring.selectors import survey_get_for_owner

POLL_SECONDS = 15


def _survey(request, pk: int):
    return survey_get_for_owner(user=request.user, pk=pk)


# While no snapshot exists yet (a worker is computing the first), exports
# answer 503 with this Retry-After and the dashboard says so.
COMPUTING_RETRY_SECONDS = 5


def _results_context(survey) -> dict:
    results = latest_results(survey)
    return {
        "survey": survey,
        "results": results,
        "cards": dashboard.cards(results) if results is not None else [],
        "plain_rows": dashboard.plain_rows(results) if results is not None else [],
        "freshness": dashboard.freshness(results),
        "batch_size": dashboard.batch_size(),
    }


def _computing() -> HttpResponse:
    response = HttpResponse(
        "The results are being computed; try again in a few seconds.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(COMPUTING_RETRY_SECONDS)
    return response


@login_required
@require_GET
@never_cache
def survey_dashboard(request, pk: int):
    survey = _survey(request, pk)
    context = _results_context(survey)
    context["poll_seconds"] = POLL_SECONDS
    return render(request, "analysis/dashboard.html", context)


@passive  # the page's automatic refresh: not a sign of anyone at the keyboard
@login_required
@require_GET
@never_cache
def survey_dashboard_live(request, pk: int):
    """The results fragment as JSON, for dashboard.js to swap in place."""
    survey = _survey(request, pk)
    context = _results_context(survey)
    html = render_to_string("analysis/_results.html", context, request=request)
    results = context["results"]
    return JsonResponse(
        {
            "html": html,
            "freshness": context["freshness"],
            "computed": results is not None,
            "computed_at": (
                results.computed_at.isoformat()
                if results is not None and results.computed_at
                else None
            ),
            "responses": results.responses if results is not None else 0,
            "pending_responses": (
                results.pending_responses if results is not None else None
            ),
            "pending_reports": results.pending_reports if results is not None else None,
            "refreshed_at": (
                results.refreshed_at.isoformat()
                if results is not None and results.refreshed_at
                else None
            ),
        }
    )


def _question_from(request, survey, name: str):
    value = request.GET.get(name, "")
    if not value:
        return None
    try:
        return survey.questions.get(pk=int(value))
    except (ValueError, survey.questions.model.DoesNotExist):
        return None


# A queued job older than this is sent again (its first sending may have been
# lost while the broker was down).
JOB_RESEND_SECONDS = 30


def _job(survey, kind: str, params: dict[str, int]) -> AnalysisJob:
    latest_results(survey)  # brings the snapshot (the job's data) up to date
    job, created = jobs.job_request(survey=survey, kind=kind, params=params)
    lost = job.status == AnalysisJob.Status.QUEUED and (
        job.created_at < timezone.now() - timedelta(seconds=JOB_RESEND_SECONDS)
    )
    if created or lost:
        tasks.send_analysis_job(job.pk)
        job.refresh_from_db()  # with no broker it has run by now
    return job


def _job_context(context: dict, job: AnalysisJob, prefix: str) -> None:
    if job.status == AnalysisJob.Status.DONE:
        if prefix == "crosstab":
            context["crosstab"] = job.result["crosstab"]
            context["crosstab_rows"] = job.result["rows"]
        else:
            context["breakdown"] = job.result
    elif job.status == AnalysisJob.Status.FAILED:
        context[f"{prefix}_error"] = job.error
    else:
        context[f"{prefix}_job"] = job


@login_required
@require_GET
def survey_crosstab(request, pk: int):
    survey = _survey(request, pk)
    candidates = crosstabs.crosstab_candidates(survey)
    strata = crosstabs.breakdown_candidates(survey)
    private = list(survey.questions.filter(is_private=True))
    context: dict = {
        "survey": survey,
        "candidates": candidates,
        "strata": strata,
        "private": private,
        "selected": {k: request.GET.get(k, "") for k in ("a", "b", "q", "by")},
    }
    a, b = _question_from(request, survey, "a"), _question_from(request, survey, "b")
    if request.GET.get("a") or request.GET.get("b"):
        if a is None or b is None:
            context["crosstab_error"] = "Pick two randomized questions."
        elif a.pk == b.pk:
            context["crosstab_error"] = "Pick two different questions."
        else:
            job = _job(survey, AnalysisJob.Kind.CROSSTAB, {"a": a.pk, "b": b.pk})
            _job_context(context, job, "crosstab")
    q, by = _question_from(request, survey, "q"), _question_from(request, survey, "by")
    if request.GET.get("q") or request.GET.get("by"):
        if q is None or by is None:
            context["breakdown_error"] = "Pick a randomized question and a grouping."
        else:
            job = _job(survey, AnalysisJob.Kind.BREAKDOWN, {"q": q.pk, "by": by.pk})
            _job_context(context, job, "breakdown")
    return render(request, "analysis/crosstab.html", context)


@passive  # the page's progress polling: not a sign of anyone at the keyboard
@login_required
@require_GET
@never_cache
def analysis_job_status(request, pk: int, job_pk: int):
    """A job's progress as JSON, for jobs.js to move its progress bar."""
    survey = _survey(request, pk)
    job = get_object_or_404(AnalysisJob, pk=job_pk, survey=survey)
    return JsonResponse(
        {
            "status": job.status,
            "progress": round(job.progress, 3),
            "finished": job.status in jobs.FINISHED,
        }
    )


@login_required
@require_GET
def survey_privacy(request, pk: int):
    survey = _survey(request, pk)
    view = survey_privacy_view(survey)
    items = []
    for q in view.questions:
        curves = []
        if q.betas is not None:
            curves.append(charts.Curve("this question (exact)", q.alphas, q.betas))
        curves.append(
            charts.Curve(
                f"ε-DP bound at ε = {q.epsilon_display}",
                q.alphas,
                q.reference,
                "curve-reference",
            )
        )
        chart = charts.tradeoff_chart(
            chart_id=f"tradeoff-q{q.question.pk}",
            title=f"Trade-off curve for “{q.question.text}”",
            desc=(
                "Smallest possible miss rate (β) of anyone testing one true answer "
                "against another from the report, for each false-alarm rate (α). "
                f"At α = 5% the miss rate is at least {q.beta_at_5 * 100:.1f}%. "
                "Higher curves mean more privacy; the diagonal is no information."
            ),
            curves=curves,
        )
        items.append({"q": q, "chart": chart})
    return render(
        request,
        "analysis/privacy.html",
        {"survey": survey, "view": view, "items": items},
    )


# --- exports ------------------------------------------------------------------------
def _filename(survey, suffix: str) -> str:
    return f"survey-{survey.pk}-{suffix}"


def _attachment(response, name: str):
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_GET
def export_estimates_csv(request, pk: int):
    survey = _survey(request, pk)
    results = latest_results(survey)
    if results is None:
        return _computing()
    body = "".join(exports.estimates_csv(results))
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    return _attachment(response, _filename(survey, "estimates.csv"))


@login_required
@require_GET
def export_estimates_json(request, pk: int):
    survey = _survey(request, pk)
    results = latest_results(survey)
    if results is None:
        return _computing()
    document = exports.estimates_document(results)
    response = JsonResponse(document, json_dumps_params={"ensure_ascii": False})
    return _attachment(response, _filename(survey, "estimates.json"))


@login_required
@require_GET
def export_reports_csv(request, pk: int):
    survey = _survey(request, pk)
    response = StreamingHttpResponse(
        exports.reports_csv(survey), content_type="text/csv; charset=utf-8"
    )
    return _attachment(response, _filename(survey, "reports.csv"))


@login_required
@require_GET
def export_reports_json(request, pk: int):
    survey = _survey(request, pk)
    response = StreamingHttpResponse(
        exports.reports_json(survey), content_type="application/json"
    )
    return _attachment(response, _filename(survey, "reports.json"))


@login_required
@require_GET
def export_design(request, pk: int):
    survey = _survey(request, pk)
    response = HttpResponse(
        json.dumps(exports.design_card(survey), ensure_ascii=False, indent=2),
        content_type="application/json",
    )
    return _attachment(response, _filename(survey, "design.json"))
