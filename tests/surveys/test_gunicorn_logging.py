"""Gunicorn's access log never holds an invitation token or a receipt link
(they are secrets carried in URL paths; gunicorn.conf.py redacts them)."""

from __future__ import annotations

import runpy
from datetime import timedelta
from types import SimpleNamespace

from gunicorn.config import Config

from tests.conftest import ROOT

TOKEN = "Zq7-secret-invitation-token-4711"
RECEIPT = "MTIz:1tSecretReceipt:abcdefSignature"


def gunicorn_config() -> dict:
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_redact_replaces_invitation_tokens_and_receipts_only():
    redact = gunicorn_config()["redact"]
    assert redact(f"GET /s/i/{TOKEN}/answer/?x=1 HTTP/1.1") == (
        "GET /s/i/[redacted]/answer/?x=1 HTTP/1.1"
    )
    assert redact(f"/s/receipt/{RECEIPT}/") == "/s/receipt/[redacted]/"
    assert redact("/s/verify/") == "/s/verify/"
    assert redact("/s/public-link/answer/") == "/s/public-link/answer/"


def test_access_log_through_gunicorns_logger_holds_no_token(tmp_path):
    logger_class = gunicorn_config()["logger_class"]
    cfg = Config()
    log_file = tmp_path / "access.log"
    cfg.set("accesslog", str(log_file))
    cfg.set("access_log_format", '%(r)s %(U)s "%(f)s" %({location}o)s %({raw_uri}e)s')
    logger = logger_class(cfg)
    environ = {
        "REQUEST_METHOD": "POST",
        "RAW_URI": f"/s/i/{TOKEN}/answer/",
        "PATH_INFO": f"/s/i/{TOKEN}/answer/",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_REFERER": f"https://surveys.example.org/s/i/{TOKEN}/",
        "REMOTE_ADDR": "192.0.2.1",
    }
    response = SimpleNamespace(
        status="303 See Other",
        headers=[("Location", f"/s/receipt/{RECEIPT}/")],
        sent=0,
    )
    request = SimpleNamespace(headers=[("REFERER", environ["HTTP_REFERER"])])
    logger.access(response, request, environ, timedelta(milliseconds=5))
    for handler in logger.access_log.handlers:
        handler.close()
    line = log_file.read_text()
    assert TOKEN not in line
    assert RECEIPT not in line
    assert line.count("/s/i/[redacted]/") == 4
    assert "/s/receipt/[redacted]/" in line
