"""Researchers' pages: dashboard, cross-tabs, privacy and exports.

Every survey page goes through ``access.survey_get_for`` (404 for anyone
else's survey) behind ``login_required``; views only read and format.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import (
    JsonResponse,
)
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext, gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from surveys.accounts.sessions import passive
from surveys.analysis import tasks, wording
from surveys.analysis.exports import kinds as export_kinds
from surveys.analysis.exports import methods
from surveys.analysis.jobs import crosstabs, pilots
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob
from surveys.analysis.pages import (
    charts,
    consistent,
    crosstab_tables,
    dashboard,
    freshness,
    numbers,
)
from surveys.analysis.pages.job_views import job_context, job_sent
from surveys.analysis.pages.privacy import survey_privacy_view
from surveys.analysis.pages.privacy_forms import GroupSizeForm
from surveys.analysis.pages.readers import survey_for, survey_with_results
from surveys.analysis.reading import latest_results
from surveys.analysis.results import estimates, selectors
from surveys.analysis.results.objects import results_from_document
from surveys.authoring import access, lifecycle
from surveys.collection.questions import answer_choices
from surveys.version import deniable_version

POLL_SECONDS = 15


def _results_context(survey, results) -> dict:
    return {
        "survey": survey,
        "results": results,
        "results_body": _results_body(survey, results),
        "freshness": freshness.freshness(results, closed=_closed(survey)),
    }


def _closed(survey) -> bool:
    """Whether the survey takes no more responses (held ones then wait)."""
    state = lifecycle.survey_availability(survey).state
    return state == lifecycle.State.CLOSED


def _source_revision() -> str:
    """A fingerprint of what renders a results fragment (templates and code), so
    a deployment never serves a fragment an older release cached."""
    digest = hashlib.sha256(deniable_version().encode())
    for path in RESULTS_SOURCES:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


RESULTS_SOURCES = [
    Path(settings.BASE_DIR) / "templates" / "analysis" / "_results_body.html",
    Path(charts.__file__),
    Path(dashboard.__file__),
    Path(numbers.__file__),
    Path(freshness.__file__),
    Path(wording.__file__),  # how a snapshot's warnings are worded
    # The fragment is kept per language: a changed translation renders it anew.
    *sorted((Path(settings.BASE_DIR) / "locale").glob("*/LC_MESSAGES/django.mo")),
]
RESULTS_REVISION = _source_revision()
# A cached fragment outlives its snapshot by at most this long (a newer snapshot
# has a new key, so this only bounds the memory stale fragments take).
RESULTS_CACHE_SECONDS = 24 * 3600


def _results_body(survey, results) -> str:
    """The results fragment of the survey's snapshot, rendered once per snapshot.

    Everything in it comes from the immutable snapshot (and the batch size), so
    it is kept in Django's cache under (survey, snapshot version and time,
    batch size, source revision, language): a new snapshot has a new key, so
    a kept fragment is never stale and nothing needs invalidating.  Only the
    freshness line above it is rendered per request.
    """
    if results is None:
        return ""
    batch = freshness.batch_size()
    context = {"survey": survey, "results": results, "batch_size": batch}
    if results.version is None:  # not a stored snapshot: nothing to key it on
        context["cards"] = dashboard.cards(results)
        context["plain_rows"] = dashboard.plain_rows(results)
        return mark_safe(render_to_string("analysis/_results_body.html", context))  # noqa: S308
    stamp = results.computed_at.timestamp() if results.computed_at else 0
    key = (
        f"analysis:results-body:{survey.pk}:{results.version}:{stamp}:"
        f"{batch}:{RESULTS_REVISION}:{get_language()}"
    )
    html = None
    with contextlib.suppress(Exception):  # the cache may be down: render anyway
        html = cache.get(key)
    if html is None:
        context["cards"] = dashboard.cards(results)
        context["plain_rows"] = dashboard.plain_rows(results)
        html = render_to_string("analysis/_results_body.html", context)
        with contextlib.suppress(Exception):
            cache.set(key, html, timeout=RESULTS_CACHE_SECONDS)
    return mark_safe(html)  # noqa: S308 (rendered by our own template)


@login_required
@require_GET
@never_cache
def survey_dashboard(request, pk: int):
    survey, results = survey_with_results(request, pk)
    context = _results_context(survey, results)
    return render(
        request,
        "analysis/dashboard.html",
        {
            **context,
            "poll_seconds": POLL_SECONDS,
            "availability": lifecycle.survey_availability(survey),
            "exports": _export_rows(survey),
            "export_retention_hours": settings.EXPORT_RETENTION_HOURS,
            "methods_paragraph": (
                methods.methods_shown(results) if results is not None else ""
            ),
        },
    )


def _export_rows(survey) -> list[dict]:
    """Each export kind with its newest job (None: never asked for)."""
    latest = jobs.latest_exports(survey)
    return [
        {"kind": kind, "job": latest.get(kind.name)}
        for kind in export_kinds.all_kinds()
    ]


@passive  # the page's automatic refresh: not a sign of anyone at the keyboard
@login_required
@require_GET
@never_cache
def survey_dashboard_live(request, pk: int):
    """The results fragment as JSON, for dashboard.js to swap in place."""
    survey, results = survey_with_results(request, pk)
    context = _results_context(survey, results)
    html = render_to_string("analysis/_results.html", context)
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


def _job(survey, kind: str, params: dict[str, int]) -> AnalysisJob:
    latest_results(survey)  # brings the snapshot (the job's data) up to date
    job, created = jobs.job_request(survey=survey, kind=kind, params=params)
    return job_sent(job, created)


def _crosstab_done(job: AnalysisJob) -> dict:
    return crosstab_tables.crosstab_shown(job.result)


def _breakdown_done(job: AnalysisJob) -> dict:
    return crosstab_tables.breakdown_shown(job.result)


@login_required
@require_GET
def survey_crosstab(request, pk: int):
    survey = survey_for(request, pk)
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
            context["crosstab_error"] = gettext("Pick two randomized questions.")
        elif a.pk == b.pk:
            context["crosstab_error"] = gettext("Pick two different questions.")
        else:
            job = _job(survey, AnalysisJob.Kind.CROSSTAB, {"a": a.pk, "b": b.pk})
            job_context(context, job, "crosstab", _crosstab_done)
    q, by = _question_from(request, survey, "q"), _question_from(request, survey, "by")
    if request.GET.get("q") or request.GET.get("by"):
        if q is None or by is None:
            context["breakdown_error"] = gettext(
                "Pick a randomized question and a grouping."
            )
        else:
            job = _job(survey, AnalysisJob.Kind.BREAKDOWN, {"q": q.pk, "by": by.pk})
            job_context(context, job, "breakdown", _breakdown_done)
    return render(request, "analysis/crosstab.html", context)


PILOT_N_DEFAULT = 500


@login_required
@require_GET
def survey_pilot(request, pk: int):
    """A synthetic pilot: simulated respondents, randomized and debiased like
    the real ones, shown as the results page would show them (SIMULATED)."""
    survey = survey_for(request, pk)
    questions = [
        q for q in selectors.survey_questions(survey) if pilots.takes_shares(q)
    ]
    fields = [
        {
            "question": q,
            "name": f"share-{q.pk}",
            "value": request.GET.get(f"share-{q.pk}", ""),
            "labels": dashboard.labels_shown(
                q.kind,
                estimates.labels_for(q, q.compiled_mechanism())
                if q.is_private and q.kind != "multi_select"
                else [label for _, label in answer_choices(q)],
            ),
            # Multiple selections: one chance per option, not shares of 100%.
            "independent": q.kind == "multi_select",
        }
        for q in questions
    ]
    context: dict = {
        "survey": survey,
        "fields": fields,
        "n": request.GET.get("n", str(PILOT_N_DEFAULT)),
        "n_max": pilots.PILOT_N_MAX,
    }
    if "n" in request.GET:
        try:
            n_text = request.GET["n"].strip()
            if not n_text.isdecimal() or len(n_text) > 7:
                raise pilots.PilotRefused(
                    gettext_noop(
                        "n is “%(value)s”; allowed: a whole number from 1 to %(max)s."
                    ),
                    value=n_text,
                    max=pilots.PILOT_N_MAX,
                )
            shares = {
                f["question"].pk: pilots.parse_shares(f["value"], f["independent"])
                for f in fields
            }
            job, created = pilots.pilot_request(
                survey=survey, n=int(n_text), shares=shares
            )
        except pilots.PilotRefused as refused:
            context["pilot_error"] = refused.shown()
        else:
            if created:
                tasks.send_analysis_job(job.pk)
                job.refresh_from_db()  # with no broker it has run by now
            job_context(context, job, "pilot", lambda done: _pilot_body(survey, done))
    return render(request, "analysis/pilot.html", context)


def _pilot_body(survey, job: AnalysisJob) -> dict:
    """A finished pilot: its results as the results page would show them."""
    results = results_from_document(job.result, pending_reports=0)
    body = {
        "survey": survey,
        "results": results,
        "batch_size": freshness.batch_size(),
        "cards": dashboard.cards(results),
        "plain_rows": dashboard.plain_rows(results),
        "simulated": True,  # no batching: nobody's answers are in it
    }
    return {
        "pilot_body": mark_safe(  # noqa: S308
            render_to_string("analysis/_results_body.html", body)
        ),
        "pilot_n": job.params["n"],
    }


@passive  # the page's progress polling: not a sign of anyone at the keyboard
@login_required
@require_GET
@never_cache
def analysis_job_status(request, pk: int, job_pk: int):
    """A job's progress as JSON, for jobs.js to move its progress bar."""
    survey = survey_for(request, pk)
    job = get_object_or_404(AnalysisJob, pk=job_pk, survey=survey)
    return JsonResponse(
        {
            "status": job.status,
            # The status in the reader's language, for the page (jobs.js).
            "status_label": str(job.get_status_display()),
            "progress": round(job.progress, 3),
            "finished": job.status in jobs.FINISHED,
        }
    )


@login_required
@require_GET
def survey_privacy(request, pk: int):
    survey = survey_for(request, pk)
    group_form = GroupSizeForm(request.GET if "k" in request.GET else None)
    view = survey_privacy_view(survey, group_size=group_form.group_size())
    items = []
    for q in view.questions:
        curves = []
        if q.betas is not None:
            curves.append(
                charts.Curve(gettext("this question (exact)"), q.alphas, q.betas)
            )
        curves.append(
            charts.Curve(
                gettext("ε-DP bound at ε = %(epsilon)s")
                % {"epsilon": q.epsilon_display},
                q.alphas,
                q.reference,
                "curve-reference",
            )
        )
        chart = charts.tradeoff_chart(
            chart_id=f"tradeoff-q{q.question.pk}",
            title=gettext("Trade-off curve for “%(text)s”") % {"text": q.question.text},
            desc=gettext(
                "Smallest possible miss rate (β) of anyone testing one true answer "
                "against another from the report, for each false-alarm rate (α). "
                "At α = 5%% the miss rate is at least %(beta)s. "
                "Higher curves mean more privacy; the diagonal is no information."
            )
            % {"beta": numbers.percent(q.beta_at_5)},
            curves=curves,
        )
        items.append({"q": q, "chart": chart})
    delta_chart = ""
    if view.delta_curve:
        epsilons, deltas = zip(*view.delta_curve, strict=True)
        delta_chart = charts.delta_curve_chart(
            chart_id="delta-curve",
            title=gettext("δ(ε) of the whole survey"),
            desc=gettext(
                "For each ε, the chance δ(ε) that the survey's μ = %(mu)s "
                "Gaussian-DP guarantee lets the ε bound be exceeded, on a log "
                "scale; the dashed line is the pure ε %(epsilon)s, from which "
                "δ = 0 holds exactly. The table below has the same figures at "
                "round values of ε."
            )
            % {
                "mu": numbers.localized(f"{view.mu:.3g}"),
                "epsilon": numbers.localized(f"{view.sequential_epsilon:.3g}"),
            },
            epsilons=epsilons,
            deltas=deltas,
            pure_epsilon=view.sequential_epsilon,
        )
    return render(
        request,
        "analysis/privacy.html",
        {
            "survey": survey,
            "view": view,
            "items": items,
            "delta_chart": delta_chart,
            "group_form": group_form,
            "group_size": group_form.group_size(),
            "consistent_method": consistent.method_label(
                selectors.consistent_method(survey_id=survey.pk)
            ),
            "can_edit": access.can(survey, request.user, access.EDIT),
        },
    )
