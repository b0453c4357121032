"""Gunicorn settings for the web service, read from environment variables."""

import logging
import os

from gunicorn.glogging import Logger

from surveys.redaction import RedactingFormatter, is_researcher_path, redact

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
# The access log records request lines only, never bodies: reports stay out of logs.
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# Gunicorn's control socket (gunicornc) defaults to one path per user
# ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl), which every
# instance on the machine would share: off unless GUNICORN_CONTROL_SOCKET names
# a path of this instance's own.
if os.environ.get("GUNICORN_CONTROL_SOCKET"):
    control_socket = os.environ["GUNICORN_CONTROL_SOCKET"]
else:
    control_socket_disable = True

# Invitation tokens and receipt links are secrets carried in URL paths
# (/s/i/<token>/..., /s/receipt/<receipt>/); the access log keeps only a marker.
#
# Whose client address and user agent are logged: "researchers" (default: only on
# the researchers' paths, surveys.redaction.RESEARCHER_PATHS; respondents' pages,
# and the styles and scripts they load, are logged without them), "none" or "all".
log_client_details = os.environ.get("ACCESS_LOG_CLIENTS", "researchers").strip()
if log_client_details not in ("researchers", "none", "all"):
    raise SystemExit(
        f"ACCESS_LOG_CLIENTS={log_client_details!r}; use researchers, none or all."
    )


class RedactingLogger(Logger):
    """Gunicorn's logger, with secrets removed from every access-log field.

    The request line, the path, the Referer (a respondent's form page names its
    invitation), the Location of redirects to receipts, and any header or
    environment value a custom access_log_format might print.  On respondents'
    requests every atom that describes the client (address, user agent,
    Referer, request headers, WSGI environment values) is "-" unless
    ``ACCESS_LOG_CLIENTS=all``.
    """

    def setup(self, cfg) -> None:
        """The error log redacted too: gunicorn writes a request's path there
        ("Error handling request /s/i/...") when the app fails outside Django."""
        super().setup(cfg)
        for handler in self.error_log.handlers:
            shown = handler.formatter or logging.Formatter()
            handler.setFormatter(RedactingFormatter(shown._fmt, shown.datefmt))

    def atoms(self, resp, req, environ, request_time) -> dict:
        values = super().atoms(resp, req, environ, request_time)
        if _hide_client(environ.get("PATH_INFO", "")):
            for key in values:
                if key in ("h", "a", "f") or key.endswith(("}i", "}e")):
                    values[key] = "-"
        return {
            key: redact(value) if isinstance(value, str) else value
            for key, value in values.items()
        }


def _hide_client(path: str) -> bool:
    if log_client_details == "all":
        return False
    return log_client_details == "none" or not is_researcher_path(path)


logger_class = RedactingLogger


def on_starting(server) -> None:
    """Refuse to fork several workers over a per-process cache: each would count
    the rate limits on its own (surveys/operations/checks.py)."""
    from surveys.operations.checks import refuse_unshared_cache

    refuse_unshared_cache(web_processes=server.cfg.workers)
