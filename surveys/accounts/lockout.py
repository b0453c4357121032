"""Lockout details for django-axes: the page shown while sign-in is paused, and
the username attempts are counted under."""

from __future__ import annotations

import math

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from surveys.accounts.models import User

LOCKED_STATUS = 429
USERNAME_FIELD = "username"
USERNAME_MAX = User._meta.get_field("username").max_length


def lockout_username(request: HttpRequest, credentials: dict | None) -> str | None:
    """The username a failure is counted under, cut to the longest a username
    can be (a 5,000-character one made storing the attempt fail with a 500)."""
    raw = (credentials or {}).get(USERNAME_FIELD) or request.POST.get(USERNAME_FIELD)
    if not raw:
        return None
    return str(raw).replace("\x00", "")[:USERNAME_MAX]


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
