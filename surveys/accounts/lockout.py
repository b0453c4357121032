"""The page shown while sign-in is locked after too many failures (django-axes)."""

from __future__ import annotations

import math

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_STATUS = 429


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    """429 with Retry-After and a page that says why and for how long."""
    cool_off = get_cool_off(request)
    seconds = int(cool_off.total_seconds()) if cool_off else 0
    response = render(
        request,
        "registration/locked_out.html",
        {
            "username": get_client_username(request, credentials) or "",
            "failure_limit": get_failure_limit(request, credentials),
            "minutes": math.ceil(seconds / 60),
        },
        status=LOCKED_STATUS,
    )
    if seconds:
        response["Retry-After"] = str(seconds)
    return response
