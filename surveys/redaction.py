"""Keep secrets that travel in URL paths out of logs and error emails.

Invitation tokens (``/s/i/<token>/...``) and receipt codes (``/s/receipt/<code>/``)
are bearer secrets: the database keeps only their hashes, so a log line holding
one would be the only copy outside the respondent's hands.  Everything that
writes a request path (gunicorn's access log, Django's request and server
loggers, the error emails sent to ADMINS) passes through :func:`redact`.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import quote, unquote

from django.utils.log import AdminEmailHandler

SECRET_PATH = re.compile(r"(/s/(?:i|receipt|unsubscribe)/)[^/?#\s\"'<>&]+")
REDACTED = r"\1[redacted]"
# A run of characters that may be a path written in another form than the one
# the server routes: percent-encoded, or with empty or "." segments.
_DISGUISED = re.compile(r"[^\s\"'<>]*(?:%[0-9A-Fa-f]{2}|//|/\./)[^\s\"'<>]*")
_SAFE = "/:?=&;@!$()*+,~-._[]"


def normalise_path(text: str) -> str:
    """A path as the server routes it: percent-decoding undone (repeatedly, so a
    double encoding is seen through too), empty and "." segments removed."""
    for _ in range(3):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    text = re.sub(r"/{2,}", "/", text)
    while "/./" in text:
        text = text.replace("/./", "/")
    return text


def _undisguise(match: re.Match[str]) -> str:
    chunk = match.group(0)
    normal = normalise_path(chunk)
    if not SECRET_PATH.search(normal):
        return chunk
    # Written back percent-encoded, so decoding never adds spaces or line breaks.
    return quote(SECRET_PATH.sub(REDACTED, normal), safe=_SAFE)


# The query string of a respondent's page: it may carry the survey's link fields
# (e.g. PROLIFIC_PID), which identify a person; logs keep the path only.
RESPONDENT_QUERY = re.compile(r"(/s/(?!manage/)[^\s?#\"'<>]*)\?[^\s#\"'<>]*")


def redact(text: str) -> str:
    """``text`` with every invitation token and receipt code in a path replaced,
    and the query string of every respondent's page.

    Paths are matched as the server routes them (:func:`normalise_path`), so
    ``/s/%69/<token>/`` is redacted as ``/s/i/[redacted]/`` is.
    """
    text = SECRET_PATH.sub(REDACTED, _DISGUISED.sub(_undisguise, text))
    return RESPONDENT_QUERY.sub(r"\1?[redacted]", text)


# Paths only researchers (signed in) use; every other request may come from a
# respondent (survey pages, and the styles and scripts those pages load).
RESEARCHER_PATHS = ("/accounts/", "/surveys/", "/results/", "/admin/", "/s/manage/")


def is_researcher_path(path: str) -> bool:
    """Whether a request path belongs to the researchers' side of the site."""
    return normalise_path(path).startswith(RESEARCHER_PATHS)


class RedactSecretsFilter(logging.Filter):
    """A logging filter that rewrites a record's message with secrets redacted.

    The record is formatted once (``msg % args``) and replaced by the redacted
    text, so every handler after this one sees the redacted message too.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return True


class RedactingFormatter(logging.Formatter):
    """A formatter whose whole output (message and traceback) is redacted.

    Filters see only the message; an exception's text and traceback are added by
    the formatter, so the console handler formats through this class.
    """

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class RedactingAdminEmailHandler(AdminEmailHandler):
    """Django's error-email handler, with secrets removed from subject and body.

    The body of an error email holds the request's path, its Referer and the
    traceback's local variables; every part is passed through :func:`redact`.
    """

    def send_mail(self, subject: str, message: str, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("html_message"):
            kwargs["html_message"] = redact(kwargs["html_message"])
        super().send_mail(redact(subject), redact(message), *args, **kwargs)
