"""A read-only JSON API for researchers, authenticated by personal tokens.

``Authorization: Bearer <token>``; tokens are created on the API tokens page
or with ``manage.py create_api_token``.  401 without a valid token, 404 for a
survey that is not the token owner's (no hint that it exists).
"""

from __future__ import annotations

import re
from functools import wraps

from django.http import Http404, JsonResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from surveys.accounts import audit
from surveys.analysis.api.openapi import PUBLIC_ID_PATTERN, openapi_document
from surveys.analysis.exports import design, raw_reports
from surveys.analysis.exports import estimates as exports
from surveys.analysis.reading import latest_results, viewable_survey_with_results
from surveys.api_tokens.services import ApiTokenRefused, api_token_authenticate
from surveys.authoring import access
from surveys.authoring.models import Survey
from surveys.authoring.selectors import surveys_for_owner

PAGE_DEFAULT = 1000
COMPUTING_RETRY_SECONDS = 5  # no snapshot yet: a worker is computing the first
PAGE_MAX = 10_000


def _error(status: int, message: str) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="deniable"'
    return response


def token_required(view=None, *, query: tuple[str, ...] = ()):
    """Authenticate by bearer token (never by session cookie) or answer 401.

    Query parameters other than ``query`` get a 400 naming them (a typo such
    as ``limt`` is not silently ignored).
    """
    if view is None:
        return lambda view: token_required(view, query=query)

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        header = request.headers.get("Authorization", "")
        scheme, _, secret = header.partition(" ")
        try:
            request.api_user = api_token_authenticate(
                secret.strip() if scheme.lower() == "bearer" else ""
            )
        except ApiTokenRefused as refused:
            return _error(401, str(refused))
        unknown = sorted(set(request.GET) - set(query))
        if unknown:
            reads = ", ".join(query) if query else "none"
            return _error(
                400,
                f"Unknown query parameters {unknown}; this endpoint reads: {reads}.",
            )
        try:
            response = view(request, *args, **kwargs)
        except Http404:
            return _error(404, "No such survey among yours.")
        response["Cache-Control"] = "no-store"
        return response

    return wrapper


def _owned(request, pk: int) -> Survey:
    survey = access.accessible_surveys(user=request.api_user).filter(pk=pk).first()
    if survey is None:
        raise Http404
    return survey


@require_GET
@never_cache
@token_required
def surveys(request):
    items = [
        {
            "id": s.pk,
            "title": s.title,
            "status": s.status,
            "epsilon_budget": s.epsilon_budget,
            "responses": s.released_count,
            "questions": s.question_count,
            "published_at": s.published_at.isoformat() if s.published_at else None,
            "estimates_url": request.build_absolute_uri(
                reverse("analysis:api_survey", kwargs={"pk": s.pk})
            ),
            "reports_url": request.build_absolute_uri(
                reverse("analysis:api_reports", kwargs={"pk": s.pk})
            ),
        }
        for s in surveys_for_owner(user=request.api_user)
    ]
    return JsonResponse({"surveys": items})


@require_GET
@never_cache
@token_required
def survey_estimates(request, pk: int):
    _, results = viewable_survey_with_results(user=request.api_user, pk=pk)
    if results is None:
        response = _error(
            503, "The results are being computed; try again in a few seconds."
        )
        response["Retry-After"] = str(COMPUTING_RETRY_SECONDS)
        return response
    return JsonResponse(exports.estimates_document(results))


def _int_param(request, name: str, default: int, low: int, high: int) -> int | None:
    raw = request.GET.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if low <= value <= high else None


@require_GET
@never_cache
@token_required(query=("after", "limit"))
def survey_reports(request, pk: int):
    survey = _owned(request, pk)
    latest_results(survey)  # the release the page stops at, brought up to date
    after = request.GET.get("after")
    limit = _int_param(request, "limit", PAGE_DEFAULT, 1, PAGE_MAX)
    if (after is not None and not re.fullmatch(PUBLIC_ID_PATTERN, after)) or (
        limit is None
    ):
        return _error(
            400,
            f"'after' must be a report_id (26 characters a-z, 2-7) and 'limit' an "
            f"integer from 1 to "
            f"{PAGE_MAX}; got after={request.GET.get('after')!r}, "
            f"limit={request.GET.get('limit')!r}.",
        )
    page = raw_reports.reports_page(survey, after=after or "", limit=limit)
    if not after:  # a reading from the start: one export, however many pages
        audit.record(request.api_user, audit.Action.EXPORT, survey, "reports (API)")
    next_url = None
    if len(page) == limit:
        path = reverse("analysis:api_reports", kwargs={"pk": survey.pk})
        next_url = request.build_absolute_uri(
            f"{path}?after={page[-1]['report_id']}&limit={limit}"
        )
    return JsonResponse(
        {
            "survey_id": survey.pk,
            "questions": design.questions_document(survey) if not after else None,
            "reports": page,
            "next": next_url,
        }
    )


@require_GET
def openapi(request):
    """The OpenAPI 3.1 description of this API (public: it holds no data)."""
    return JsonResponse(openapi_document(request))
