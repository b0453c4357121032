"""Gunicorn settings for the web service, read from environment variables."""

import os

from gunicorn.glogging import Logger

from surveys.redaction import redact

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
# The access log records request lines only, never bodies: reports stay out of logs.
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")

# Invitation tokens and receipt links are secrets carried in URL paths
# (/s/i/<token>/..., /s/receipt/<receipt>/); the access log keeps only a marker.


class RedactingLogger(Logger):
    """Gunicorn's logger, with secrets removed from every access-log field.

    The request line, the path, the Referer (a respondent's form page names its
    invitation), the Location of redirects to receipts, and any header or
    environment value a custom access_log_format might print.
    """

    def atoms(self, resp, req, environ, request_time) -> dict:
        values = super().atoms(resp, req, environ, request_time)
        return {
            key: redact(value) if isinstance(value, str) else value
            for key, value in values.items()
        }


logger_class = RedactingLogger
