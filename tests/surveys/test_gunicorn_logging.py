"""Gunicorn's access log never holds an invitation token, a receipt link or an
unsubscribe token (secrets carried in URL paths; gunicorn.conf.py redacts
them)."""

from __future__ import annotations

import runpy
from datetime import timedelta
from types import SimpleNamespace

from gunicorn.config import Config

from tests.conftest import ROOT

TOKEN = "Zq7-secret-invitation-token-4711"
RECEIPT = "MTIz:1tSecretReceipt:abcdefSignature"
UNSUBSCRIBE = "MTI:1uSubscribed:unsubscribeSignature7"


def gunicorn_config() -> dict:
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def test_redact_replaces_tokens_receipts_and_respondents_query_strings_only():
    redact = gunicorn_config()["redact"]
    # A respondent's query string may carry a link field (e.g. PROLIFIC_PID).
    assert redact(f"GET /s/i/{TOKEN}/answer/?x=1 HTTP/1.1") == (
        "GET /s/i/[redacted]/answer/?[redacted] HTTP/1.1"
    )
    assert redact(f"/s/receipt/{RECEIPT}/") == "/s/receipt/[redacted]/"
    assert redact(f"/s/unsubscribe/{UNSUBSCRIBE}/") == "/s/unsubscribe/[redacted]/"
    assert redact("/s/verify/") == "/s/verify/"
    assert redact("/s/public-link/answer/") == "/s/public-link/answer/"
    assert redact("GET /results/3/?n=2 HTTP/1.1") == "GET /results/3/?n=2 HTTP/1.1"


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
    # The request line and the path; the Referer and the environment value are
    # a respondent's, so they are not logged at all.
    assert line.count("/s/i/[redacted]/") == 2
    assert '"-"' in line and "surveys.example.org" not in line
    assert "/s/receipt/[redacted]/" in line


def access_line(tmp_path, path: str, raw_uri: str | None = None) -> str:
    """One access-log line for a GET of ``path`` from 192.0.2.1, as gunicorn
    writes it with its default format (address, time, request, Referer, agent)."""
    logger_class = gunicorn_config()["logger_class"]
    cfg = Config()
    log_file = tmp_path / "access.log"
    cfg.set("accesslog", str(log_file))
    logger = logger_class(cfg)
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": raw_uri or path,
        "PATH_INFO": path,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_REFERER": "https://surveys.example.org/s/some-survey/",
        "HTTP_USER_AGENT": "Mozilla/5.0 (Canary Browser 7.1)",
        "REMOTE_ADDR": "192.0.2.1",
    }
    response = SimpleNamespace(status="200 OK", headers=[], sent=0)
    request = SimpleNamespace(
        headers=[
            ("REFERER", environ["HTTP_REFERER"]),
            ("USER-AGENT", environ["HTTP_USER_AGENT"]),
        ]
    )
    logger.access(response, request, environ, timedelta(milliseconds=5))
    for handler in logger.access_log.handlers:
        handler.close()
    return log_file.read_text()


def test_respondent_requests_are_logged_without_address_agent_or_referer(tmp_path):
    for path in ("/s/abc/answer/", "/static/js/respond.js", "/s/verify/", "/"):
        line = access_line(tmp_path, path)
        assert "192.0.2.1" not in line, line
        assert "Canary Browser" not in line, line
        assert "surveys.example.org" not in line, line
        assert path in line


def test_researcher_requests_keep_address_and_agent(tmp_path):
    line = access_line(tmp_path, "/surveys/")
    assert line.startswith("192.0.2.1 ")
    assert "Canary Browser" in line


def test_an_unsubscribe_request_is_logged_without_its_token(tmp_path):
    line = access_line(tmp_path, f"/s/unsubscribe/{UNSUBSCRIBE}/")
    assert UNSUBSCRIBE not in line
    assert "/s/unsubscribe/[redacted]/" in line


def test_a_percent_encoded_invitation_path_is_redacted_in_the_access_log(tmp_path):
    line = access_line(tmp_path, f"/s/i/{TOKEN}/", raw_uri=f"/s/%69/{TOKEN}/")
    assert TOKEN not in line
    assert "/s/i/[redacted]/" in line


def test_error_log_through_gunicorns_logger_holds_no_token(tmp_path):
    logger_class = gunicorn_config()["logger_class"]
    cfg = Config()
    log_file = tmp_path / "error.log"
    cfg.set("errorlog", str(log_file))
    logger = logger_class(cfg)
    try:
        raise RuntimeError(f"failed on /s/i/{TOKEN}/")
    except RuntimeError:
        logger.exception("Error handling request %s", f"/s/i/{TOKEN}/answer/")
    for handler in logger.error_log.handlers:
        handler.close()
    text = log_file.read_text()
    assert TOKEN not in text
    assert "Error handling request /s/i/[redacted]/answer/" in text
    assert "RuntimeError: failed on /s/i/[redacted]/" in text
