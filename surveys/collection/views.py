"""Respondent pages: consent, the form, the receipt, and the verify page.

Views stay thin: forms check shape, services check meaning and store, and
selectors read.  The respond view is marked sensitive so that error reports
never include what was posted.  Submissions, invitation pages and public survey
pages are rate limited (``ratelimit``) before anything is looked up or stored.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_safe

from surveys.authoring import lifecycle, translations
from surveys.authoring.models import Survey
from surveys.collection import (
    device_config,
    ratelimit,
    responses,
    selectors,
    services,
)
from surveys.collection.forms import ResponseForm
from surveys.collection.models import Invitation


# --- finding the survey -----------------------------------------------------------
def _public_survey(public_token: str) -> Survey:
    survey = selectors.answerable_survey(public_token)
    if survey is None:
        raise Http404("No such survey.")
    return survey


def _invitation(request: HttpRequest, token: str) -> Invitation | HttpResponse:
    invitation = selectors.invitation_by_token(token)
    if invitation is None or invitation.survey.status == Survey.Status.DRAFT:
        return _problem(
            request,
            gettext(
                "This invitation link is not valid. Check that you copied the whole "
                "link, or ask the researcher for a new one."
            ),
            status=404,
        )
    if invitation.used:
        return _problem(
            request,
            gettext(
                "This invitation link has already been used to answer the survey, "
                "and each link works once. If you did not answer, ask the researcher "
                "for a new link."
            ),
            status=410,
        )
    return invitation


def _in_survey_language(request: HttpRequest, survey: Survey) -> None:
    """Show this page of ``survey`` in the respondent's language among the
    survey's (``translations.localize_for_request``), unless already done."""
    if not hasattr(survey, "offered_languages"):
        translations.localize_for_request(request, survey)


def _problem(
    request: HttpRequest,
    message: str | Promise,
    *,
    status: int,
    survey: Survey | None = None,
) -> HttpResponse:
    """A page saying what went wrong; on a survey's page, in the respondent's
    language among the survey's (a lazy ``message`` is worded in it)."""
    if survey is not None:
        _in_survey_language(request, survey)
    return render(
        request,
        "collection/problem.html",
        {"message": message, "survey": survey},
        status=status,
    )


def _too_many(request: HttpRequest, exceeded: ratelimit.Exceeded) -> HttpResponse:
    """429 with Retry-After: a page to read, or JSON for the page's script."""
    response: HttpResponse
    if _wants_json(request):
        response = JsonResponse(
            {
                "error": exceeded.message,
                "code": "rate_limited",
                "retry_after": exceeded.retry_after,
            },
            status=429,
        )
    else:
        response = render(
            request,
            "collection/too_many.html",
            {"message": exceeded.message},
            status=429,
        )
    response["Retry-After"] = str(exceeded.retry_after)
    return response


def _not_open(
    request: HttpRequest, survey: Survey, availability: lifecycle.Availability
) -> HttpResponse:
    """The page for a survey that is not open yet, or closed (by any reason)."""
    if availability.state == lifecycle.State.NOT_YET:
        _in_survey_language(request, survey)
        return render(
            request,
            "collection/not_open_yet.html",
            {
                "survey": survey,
                "opens_at": availability.opens_at,
                "zone": lifecycle.survey_zone(survey),
            },
            status=403,
        )
    return _closed(request, survey)


def _invitation_only(request: HttpRequest, survey: Survey) -> HttpResponse:
    if request.method == "POST" and _wants_json(request):
        return JsonResponse(
            {
                "error": gettext(
                    "This survey is by invitation only; nothing was stored."
                ),
                "code": "invitation_only",
            },
            status=403,
        )
    return _problem(
        request,
        gettext_lazy(
            "This survey is by invitation only: its public link is switched off. "
            "If you were invited, use the personal link you were sent."
        ),
        status=403,
        survey=survey,
    )


def _closed(request: HttpRequest, survey: Survey) -> HttpResponse:
    return _problem(
        request,
        gettext_lazy(
            "This survey has closed and no longer accepts answers. Thank you for "
            "your interest."
        ),
        status=410,
        survey=survey,
    )


# --- what the respondent's device is given -----------------------------------------
def _unanswerable(request: HttpRequest, survey: Survey) -> HttpResponse:
    return _problem(
        request,
        gettext_lazy(
            "This survey has a kind of question that cannot be answered yet, so "
            "nothing can be sent. Please try again later."
        ),
        status=503,
        survey=survey,
    )


# --- consent ----------------------------------------------------------------------
def _link_values(request: HttpRequest, survey: Survey) -> dict[str, str] | str:
    """The survey's link fields found in the page's query string (others are
    ignored and never stored), or why one cannot be stored."""
    values = {}
    for name in survey.link_fields:
        value = request.GET.get(name, "")
        if value:
            problem = services.link_value_problem(name, value, survey.link_fields)
            if problem:
                return gettext("%(problem)s Ask the researcher for a correct link.") % {
                    "problem": problem
                }
            values[name] = value
    return values


def _bad_link(request: HttpRequest, survey: Survey, problem: str) -> HttpResponse:
    return _problem(request, problem, status=400, survey=survey)


def _consent(
    request: HttpRequest, survey: Survey, start_url: str, *, invitation: bool = False
) -> HttpResponse:
    availability = lifecycle.survey_availability(survey)
    if not availability.is_open:
        return _not_open(request, survey, availability)
    translations.localize_for_request(request, survey)
    link_values = _link_values(request, survey)
    if isinstance(link_values, str):
        return _bad_link(request, survey, link_values)
    if link_values:
        start_url = f"{start_url}?{urlencode(link_values)}"
    try:
        form = ResponseForm(survey=survey)
    except ValueError:
        return _unanswerable(request, survey)
    return render(
        request,
        "collection/consent.html",
        {
            "survey": survey,
            "questions": form.blocks(),
            "start_url": start_url,
            # What is stored, said by the server that stores it (protection
            # itself is worded by the device).
            "invitation": invitation,
            "link_values": link_values,
            "has_plain": any(not q.is_private for q in survey.questions.all()),
            "has_optional": any(q.optional for q in form.questions),
            "received_unit": settings.RECEIVED_AT_GRANULARITY,
            "logs_clients": settings.ACCESS_LOG_CLIENTS == "all",
            **device_config.device_context(survey, form, "consent"),
        },
    )


@require_safe
def declined(request: HttpRequest) -> HttpResponse:
    """After "No thanks": nothing was recorded."""
    return render(request, "collection/declined.html")


@require_safe
def consent_public(request: HttpRequest, public_token: str) -> HttpResponse:
    if exceeded := ratelimit.check_page(request):
        return _too_many(request, exceeded)
    survey = _public_survey(public_token)
    if survey.invitation_only:
        return _invitation_only(request, survey)
    start = reverse("collection:respond", args=[public_token])
    return _consent(request, survey, start)


@require_safe
@never_cache
def consent_invitation(request: HttpRequest, token: str) -> HttpResponse:
    if exceeded := ratelimit.check_lookup(request):
        return _too_many(request, exceeded)
    invitation = _invitation(request, token)
    if isinstance(invitation, HttpResponse):
        return invitation
    start = reverse("collection:respond_invitation", args=[token])
    return _consent(request, invitation.survey, start, invitation=True)


# --- the form ---------------------------------------------------------------------
def _respond(
    request: HttpRequest, survey: Survey, invitation_token: str | None
) -> HttpResponse:
    """The answer page (GET) or the submission (POST) of ``survey``."""
    within_grace = request.method == "POST" and lifecycle.stamp_within_grace(
        survey, request.POST.get("opened", "")
    )
    if not lifecycle.accepts_submission(survey, within_grace=within_grace):
        if request.method == "POST":
            return _rejected(
                request,
                survey,
                responses.SubmissionRejected(
                    gettext(
                        "This survey is not accepting answers, so nothing was stored."
                    ),
                    status=410,
                    code="closed",
                ),
            )
        return _not_open(request, survey, lifecycle.survey_availability(survey))
    if request.method == "POST" and (
        exceeded := ratelimit.check_survey(survey.pk, request)
    ):
        return _too_many(request, exceeded)
    if request.method == "POST":
        return store_posted_answers(
            request,
            survey,
            # Followed by the page's script; also a link on the receipt.
            redirect_url=survey.completion_url(),
            invitation_token=invitation_token,
            within_grace=within_grace,
        )
    translations.localize_for_request(request, survey)
    link_values = _link_values(request, survey)
    if isinstance(link_values, str):
        return _bad_link(request, survey, link_values)
    try:
        form = ResponseForm(survey=survey, link_values=link_values)
    except ValueError:
        return _unanswerable(request, survey)
    return _form_page(request, survey, form)


def store_posted_answers(
    request: HttpRequest, survey: Survey, *, redirect_url: str, **ingest: Any
) -> HttpResponse:
    """Validate the posted answer form and store it (``services.submission_ingest``
    with ``ingest``'s options): the receipt (a 303 to it, or JSON for the page's
    script, with the completion ``redirect_url``), or the form's refusal."""
    try:
        # Built once per POST; files too, so that one is refused, never ignored.
        form = ResponseForm(request.POST, request.FILES, survey=survey)
    except ValueError:
        return _unanswerable(request, survey)
    if not form.is_valid():
        error = responses.SubmissionRejected(" ".join(form.problems()))
        return _rejected(request, survey, error, form=form)
    if survey.record_language:  # an unprotected field the researcher declared
        ingest["language"] = translations.language_for_request(request, survey)
    try:
        outcome = services.submission_ingest(
            survey=survey, response=form.response(), **ingest
        )
    except responses.SubmissionRejected as error:
        return _rejected(request, survey, error, form=form)
    receipt_url = reverse("collection:receipt", args=[outcome.receipt_code])
    if _wants_json(request):
        return JsonResponse(
            {
                "receipt_url": receipt_url,
                "created": outcome.created,
                "redirect_url": redirect_url,
            },
            status=201 if outcome.created else 200,
        )
    return HttpResponseRedirect(receipt_url, status=303)


def _form_page(
    request: HttpRequest,
    survey: Survey,
    form: ResponseForm,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "collection/respond.html",
        {
            **_page_context(survey, form),
            "error": error,
            # Signed "loaded while open" (lifecycle's grace period); not stored.
            "open_stamp": lifecycle.open_stamp(survey),
            "link_values": form.link_values(),
        },
        status=status,
    )


def _page_context(survey: Survey, form: ResponseForm) -> dict[str, Any]:
    """What the answer page shows the same to every respondent of ``survey``."""
    return {
        "survey": survey,
        "form": form,
        **device_config.device_context(survey, form, "respond"),
    }


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _rejected(
    request: HttpRequest,
    survey: Survey,
    error: responses.SubmissionRejected,
    form: ResponseForm | None = None,
) -> HttpResponse:
    if _wants_json(request):
        body = {"error": error.message, "code": error.code}
        if error.code == "stale":
            # The current revision's compiled specs, so the device can tell
            # which questions changed: unchanged reports are resent byte for
            # byte, changed ones only by the respondent's informed choice.
            current = Survey.objects.get(pk=survey.pk)
            body["survey_revision"] = current.revision
            body["questions"] = ResponseForm(survey=current).js_config()["questions"]
        return JsonResponse(body, status=error.status)
    if form is not None and error.status == 400:
        # A page to read, with a fresh, empty form; nothing posted is echoed.
        return _form_page(
            request,
            survey,
            ResponseForm(survey=survey),
            error=error.message,
            status=400,
        )
    return _problem(request, error.message, status=error.status, survey=survey)


@sensitive_post_parameters()
@require_http_methods(["GET", "POST"])
@never_cache
def respond_public(request: HttpRequest, public_token: str) -> HttpResponse:
    exceeded = (
        ratelimit.check_submission(request)
        if request.method == "POST"
        else ratelimit.check_page(request)
    )
    if exceeded:
        return _too_many(request, exceeded)
    survey = _public_survey(public_token)
    if survey.invitation_only:
        return _invitation_only(request, survey)
    return _respond(request, survey, None)


@sensitive_post_parameters()
@require_http_methods(["GET", "POST"])
@never_cache
def respond_invitation(request: HttpRequest, token: str) -> HttpResponse:
    exceeded = (
        ratelimit.check_submission(request, invitation_token=token)
        if request.method == "POST"
        else ratelimit.check_lookup(request)
    )
    if exceeded:
        return _too_many(request, exceeded)
    invitation = selectors.invitation_by_token(token)
    if invitation is not None and request.method == "POST":
        # Used or not, the service decides (so a retry still gets its receipt).
        return _respond(request, invitation.survey, token)
    found = _invitation(request, token)
    if isinstance(found, HttpResponse):
        if request.method == "POST" and _wants_json(request):
            return JsonResponse(
                {
                    "error": gettext(
                        "This invitation link is not valid; nothing was stored."
                    ),
                    "code": "unknown_invitation",
                },
                status=404,
            )
        return found
    return _respond(request, found.survey, token)
