"""Researchers' pages: dashboard, cross-tabs, privacy and exports.

Every survey page goes through ``survey_get_for_owner`` (404 for anyone
else's survey) behind ``login_required``; views only read and format.
"""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from surveys.accounts.sessions import passive
from surveys.analysis import charts, crosstabs, dashboard, exports
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
        else:
            try:
                table = crosstabs.crosstab(a, b)
            except crosstabs.CrossTabUnavailable as error:
                context["crosstab_error"] = str(error)
            else:
                context["crosstab"] = table
                context["crosstab_rows"] = _crosstab_rows(table)
    q, by = _question_from(request, survey, "q"), _question_from(request, survey, "by")
    if request.GET.get("q") or request.GET.get("by"):
        if q is None or by is None:
            context["breakdown_error"] = "Pick a randomized question and a grouping."
        else:
            try:
                context["breakdown"] = _breakdown_context(crosstabs.breakdown(q, by))
            except crosstabs.CrossTabUnavailable as error:
                context["breakdown_error"] = str(error)
    return render(request, "analysis/crosstab.html", context)


def _crosstab_rows(table: crosstabs.CrossTab) -> list[dict]:
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
    return rows


def _breakdown_context(result: crosstabs.Breakdown) -> dict:
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
                "stratum": stratum,
                "rows": rows,
                "mean": num(stratum.mean),
                "mean_low": num(stratum.mean_low),
                "mean_high": num(stratum.mean_high),
            }
        )
    return {"result": result, "strata": strata}


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
