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

from django.utils.log import AdminEmailHandler

SECRET_PATH = re.compile(r"(/s/(?:i|receipt)/)[^/?#\s\"'<>&]+")
REDACTED = r"\1[redacted]"


def redact(text: str) -> str:
    """``text`` with every invitation token and receipt code in a path replaced."""
    return SECRET_PATH.sub(REDACTED, text)


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
