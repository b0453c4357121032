"""How long a researcher stays signed in: an idle timeout and an absolute limit.

A sign-in stamps the session; every later request by a signed-in user is
checked against ``SESSION_IDLE_TIMEOUT`` (since the last activity, to the
minute) and ``SESSION_MAX_AGE`` (since signing in).  Requests of views marked
``passive`` (the dashboard's automatic refresh) are not activity: an open tab
on an unattended computer does not keep the session alive.  Once two-factor
sign-in is on, a session not opened with a code (one from before) ends too.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django_otp import DEVICE_ID_SESSION_KEY

SIGNED_IN_AT = "deniable_signed_in_at"
LAST_ACTIVITY = "deniable_last_activity"
# Activity is recorded at most once a minute, so reading pages rarely writes.
ACTIVITY_RESOLUTION = 60


def passive(view: Callable) -> Callable:
    """Mark a view whose requests are not a person's activity (e.g. polling)."""
    view.session_passive = True  # type: ignore[attr-defined]
    return view


def stamp_sign_in(sender, request: HttpRequest | None, user, **kwargs) -> None:
    """On sign-in (``user_logged_in``): start both clocks."""
    if request is None or not hasattr(request, "session"):
        return
    now = int(time.time())
    request.session[SIGNED_IN_AT] = now
    request.session[LAST_ACTIVITY] = now
    request.session.set_expiry(settings.SESSION_IDLE_TIMEOUT)


def _ended(session, now: int, user_device: str) -> str:
    """Why this session is over ("" while it is not)."""
    signed_in_at = session.get(SIGNED_IN_AT)
    last_activity = session.get(LAST_ACTIVITY)
    if signed_in_at is None or last_activity is None:
        return "Please sign in again."
    if now - signed_in_at > settings.SESSION_MAX_AGE:
        hours = settings.SESSION_MAX_AGE / 3600
        return f"You were signed out {hours:g} hours after signing in; sign in again."
    if user_device and session.get(DEVICE_ID_SESSION_KEY) != user_device:
        return "Two-factor sign-in is on for this account: sign in with your code."
    if now - last_activity > settings.SESSION_IDLE_TIMEOUT:
        minutes = settings.SESSION_IDLE_TIMEOUT / 60
        return (
            f"You were signed out after {minutes:g} minutes without activity; "
            "sign in again."
        )
    return ""


class SessionLifetimeMiddleware:
    """Sign out sessions past their idle timeout or absolute lifetime."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        session = request.session
        now = int(time.time())
        # The user row (already loaded) names the current device: no query.
        reason = _ended(session, now, user.two_factor_device)
        if reason:
            logout(request)
            messages.info(request, reason)
            return None
        if getattr(view_func, "session_passive", False):
            return None
        if now - session[LAST_ACTIVITY] >= ACTIVITY_RESOLUTION:
            session[LAST_ACTIVITY] = now
            left = settings.SESSION_MAX_AGE - (now - session[SIGNED_IN_AT])
            session.set_expiry(max(1, min(settings.SESSION_IDLE_TIMEOUT, left)))
        return None
