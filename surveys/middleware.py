"""Site-wide middleware: a clear 503 while the database cannot be reached.

While PostgreSQL restarts (or the network to it fails) every query raises
``django.db.OperationalError`` or ``InterfaceError``.  Without this middleware
that is a bare "500 Server Error"; with it the client gets **503 Service
Unavailable** with a ``Retry-After`` header (``DB_UNAVAILABLE_RETRY_AFTER``
seconds) and a plain sentence: nothing was stored, try again.  Respondents'
pages retry with the same idempotency key, so a retry after the database is
back stores the submission once.

Where the error can come from, and how each is caught:

- the view, its decorators (``login_required`` reads ``request.user``) and the
  rendering of a template response: ``process_exception``;
- other middleware (e.g. ``SessionMiddleware`` saving a session after the
  view): Django turns an exception raised inside a middleware into a 500
  response before the next middleware out sees it, so no ``try`` around
  ``get_response`` can catch it.  Django announces it first with the
  ``got_request_exception`` signal, though; the receiver below marks the
  request, and ``__call__`` (outermost, so it runs last) replaces that 500
  with the 503.

The 503 is rendered without the database: no session, no user, no context
processors (``templates/503.html`` extends nothing).  Requests for JSON (an
``Accept: application/json`` header, or any path under ``/api/``) get
``{"error", "code", "retry_after"}`` like the 429 answers.  Each 503 is logged
once at WARNING with the method, the view's name and the error's class and
first line: never the request body, its parameters or the path (paths can
carry invitation tokens and receipts).  (An error raised inside another
middleware has already been logged by Django at ERROR, as every uncaught
exception is, before it is turned into the 503.)
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext, ngettext

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
DEFAULT_RETRY_AFTER = 5
# Set on a request whose handling raised a database error in some middleware.
_MARK = "_deniable_database_error"


def retry_after_seconds() -> int:
    """Seconds clients are told to wait (``DB_UNAVAILABLE_RETRY_AFTER``, ≥ 1)."""
    value = getattr(settings, "DB_UNAVAILABLE_RETRY_AFTER", DEFAULT_RETRY_AFTER)
    return max(1, int(value))


def unavailable_message(retry_after: int) -> str:
    """What a person reads on the 503 page (and in the JSON ``error``)."""
    wait = ngettext("%(count)d second", "%(count)d seconds", retry_after) % {
        "count": retry_after
    }
    return gettext(
        "The service cannot reach its database right now, so nothing was stored "
        "or changed. This is usually over within a minute: please wait "
        "%(wait)s and try again."
    ) % {"wait": wait}


def wants_json(request: HttpRequest) -> bool:
    """True for the page's script, API clients and anything under ``/api/``."""
    return (
        "application/json" in request.headers.get("Accept", "")
        or "/api/" in request.path_info
    )


def database_unavailable_response(
    request: HttpRequest, error: BaseException
) -> HttpResponse:
    """The 503 for ``request`` (JSON or a page), logged once at WARNING."""
    retry_after = retry_after_seconds()
    message = unavailable_message(retry_after)
    match = getattr(request, "resolver_match", None)
    first_line = (str(error).strip().splitlines() or [""])[0][:200]
    logger.warning(
        "Database unavailable during %s %s (%s: %s); answered 503, Retry-After %s.",
        request.method,
        match.view_name if match is not None else "(unresolved view)",
        type(error).__name__,
        first_line,
        retry_after,
    )
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse(
            {
                "error": message,
                "code": "database_unavailable",
                "retry_after": retry_after,
            },
            status=503,
        )
    else:
        response = HttpResponse(
            render_to_string(
                "503.html", {"message": message, "retry_after": retry_after}
            ),
            status=503,
            content_type="text/html; charset=utf-8",
        )
    response["Retry-After"] = str(retry_after)
    add_never_cache_headers(response)
    # Logged above at WARNING; Django's handler would log it again at ERROR.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def _mark_database_error(sender: Any, request: HttpRequest | None = None, **_) -> None:
    """``got_request_exception`` receiver: remember a database error on the request."""
    error = sys.exc_info()[1]
    if request is not None and isinstance(error, DATABASE_ERRORS):
        setattr(request, _MARK, error)


got_request_exception.connect(
    _mark_database_error, dispatch_uid="surveys.middleware.database_unavailable"
)


class DatabaseUnavailableMiddleware:
    """Answer 503 with ``Retry-After`` when the database cannot be reached.

    Put it first in ``MIDDLEWARE`` so that it sees the responses of every
    other middleware (sessions, authentication, messages).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        error = getattr(request, _MARK, None)
        if error is not None and response.status_code >= 500:
            # Another middleware raised it; Django already made it a 500.
            return database_unavailable_response(request, error)
        return response

    def process_exception(
        self, request: HttpRequest, exception: Exception
    ) -> HttpResponse | None:
        """The view (or its template) raised: a 503 for database errors only."""
        if isinstance(exception, DATABASE_ERRORS):
            return database_unavailable_response(request, exception)
        return None
