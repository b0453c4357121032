"""Links that open a survey on the independent device (``settings.DEVICE_URL``).

A link is the device's address with the survey server's origin and the
survey's public token (or an invitation token) in the fragment: the fragment
never reaches the host that serves the device, so that host learns nothing of
which survey or invitation a respondent opened.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest


def server_origin(request: HttpRequest) -> str:
    """This survey server's origin as the request reached it."""
    return f"{request.scheme}://{request.get_host()}"


def device_link(
    origin: str, *, survey: str | None = None, invitation: str | None = None
) -> str | None:
    """The independent device's link to a public ``survey`` token or an
    ``invitation`` token on the server at ``origin`` (None: no DEVICE_URL)."""
    base = settings.DEVICE_URL
    if not base:
        return None
    named = {"invitation": invitation} if invitation else {"survey": survey or ""}
    return f"{base.split('#')[0]}#{urlencode({'server': origin, **named})}"
