"""Error reports (the emails sent to ADMINS) that name no respondent's client.

Kept apart from ``surveys.redaction``, which gunicorn's configuration imports
before Django is set up.
"""

from __future__ import annotations

from typing import Any

from django.views.debug import SafeExceptionReporterFilter

from surveys.redaction import is_researcher_path


class ClientFreeExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's error-report filter, keeping respondents' clients out of reports.

    An error email for a request on a respondent's path (anything but
    :data:`RESEARCHER_PATHS`) shows no client address, no request header but
    ``Host`` and no cookie: with the time of the email they would tie a person
    to the moment they answered.
    """

    def _respondent(self, request: Any) -> bool:
        path = getattr(request, "path", None)
        return path is not None and not is_researcher_path(path)

    def get_safe_request_meta(self, request: Any) -> dict[str, Any]:
        """``request.META`` with the client's address and headers cleansed."""
        meta = super().get_safe_request_meta(request)
        if not self._respondent(request):
            return meta
        return {
            key: (
                self.cleansed_substitute
                if key.startswith("REMOTE_")
                or (key.startswith("HTTP_") and key != "HTTP_HOST")
                else value
            )
            for key, value in meta.items()
        }

    def get_safe_cookies(self, request: Any) -> dict[str, Any]:
        """The request's cookies, every value cleansed on respondents' paths."""
        cookies = super().get_safe_cookies(request)
        if not self._respondent(request):
            return cookies
        return {name: self.cleansed_substitute for name in cookies}
