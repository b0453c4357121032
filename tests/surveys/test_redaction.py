"""Invitation tokens, receipt codes and unsubscribe tokens never reach logs or
error emails."""

from __future__ import annotations

import logging
import sys

import pytest
from django.core import mail
from django.test import RequestFactory

from surveys.redaction import RedactingFormatter, RedactSecretsFilter, redact

TOKEN = "inv-Zq8sWm3kT1uYcVb7"
RECEIPT = "rcpt-Hx4LpQ9aNd2e"
UNSUBSCRIBE = "MTI:1uSubscribed:unsubscribeSignature7"


def test_redact_replaces_tokens_and_receipts_but_not_public_paths():
    assert redact(f"/s/i/{TOKEN}/answer/") == "/s/i/[redacted]/answer/"
    assert redact(f"'/s/receipt/{RECEIPT}/'") == "'/s/receipt/[redacted]/'"
    assert redact(f"POST /s/unsubscribe/{UNSUBSCRIBE}/ HTTP/1.1") == (
        "POST /s/unsubscribe/[redacted]/ HTTP/1.1"
    )
    assert redact("/s/verify/ /s/public-link/answer/") == (
        "/s/verify/ /s/public-link/answer/"
    )


def test_filter_rewrites_a_formatted_record_and_keeps_it():
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Not Found: %s",
        (f"/s/i/{TOKEN}/",), None,
    )  # fmt: skip
    assert RedactSecretsFilter().filter(record) is True
    assert record.getMessage() == "Not Found: /s/i/[redacted]/"


def test_console_formatter_redacts_the_traceback_too():
    formatter = RedactingFormatter("%(message)s")
    try:
        raise RuntimeError(f"no invitation /s/i/{TOKEN}/")
    except RuntimeError:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info()
        )
    text = formatter.format(record)
    assert TOKEN not in text
    assert "RuntimeError: no invitation /s/i/[redacted]/" in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", f"/s/i/{TOKEN}/"),
        ("post", f"/s/i/{TOKEN}/answer/"),
        ("get", f"/s/unsubscribe/{UNSUBSCRIBE}/"),
        ("post", f"/s/unsubscribe/{UNSUBSCRIBE}/"),
    ],
)
def test_django_request_log_of_a_refused_token_has_no_token(
    client, caplog, method, path
):
    secret = path.split("/")[3]
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = getattr(client, method)(path)
    assert 400 <= response.status_code < 500
    assert caplog.records, "the 4xx is logged"
    assert all(secret not in record.getMessage() for record in caplog.records)
    assert f"{path.split('/')[2]}/[redacted]/" in caplog.text


def test_error_email_for_a_failed_invitation_request_has_no_token(settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.DEBUG = False
    request = RequestFactory().post(
        f"/s/i/{TOKEN}/answer/", HTTP_REFERER=f"https://x.example/s/i/{TOKEN}/"
    )
    try:
        raise RuntimeError(f"failed while handling /s/receipt/{RECEIPT}/")
    except RuntimeError:
        logging.getLogger("django.request").error(
            "Internal Server Error: %s",
            request.path,
            exc_info=True,
            extra={"status_code": 500, "request": request},
        )
    assert len(mail.outbox) == 1
    email = mail.outbox[0]
    parts = [email.subject, email.body] + [alt[0] for alt in email.alternatives]
    assert all(TOKEN not in part and RECEIPT not in part for part in parts)
    assert "/s/i/[redacted]/answer/" in email.subject


@pytest.mark.parametrize(
    "disguised",
    [
        f"/s/%69/{TOKEN}/",
        f"/s/%2569/{TOKEN}/",
        f"/s%2Fi%2F{TOKEN}/answer/",
        f"/s//i/{TOKEN}/",
        f"/s/./receipt/{RECEIPT}/",
        f"/s/%72eceipt/{RECEIPT}/",
    ],
)
def test_redact_sees_through_percent_encoding_and_empty_segments(disguised):
    line = redact(f'GET {disguised} HTTP/1.1 "-"')
    assert TOKEN not in line and RECEIPT not in line
    assert "[redacted]" in line
    assert "\n" not in line


@pytest.mark.django_db
def test_the_percent_encoded_invitation_path_is_routed_and_redacted(client, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.get(f"/s/%69/{TOKEN}/")
    assert response.status_code == 404  # routed as an invitation (unknown token)
    assert TOKEN not in caplog.text


def test_error_email_about_a_respondent_request_names_no_client(settings):
    settings.ADMINS = [("Ops", "ops@example.org")]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.DEBUG = False
    request = RequestFactory().post(
        "/s/public-link/answer/",
        REMOTE_ADDR="203.0.113.77",
        HTTP_USER_AGENT="Canary Browser 9.9",
        HTTP_X_FORWARDED_FOR="198.51.100.77",
        HTTP_COOKIE="csrftoken=canary-cookie-value-1234",
    )
    try:
        raise RuntimeError("failed while storing an answer")
    except RuntimeError:
        logging.getLogger("django.request").error(
            "Internal Server Error: %s",
            request.path,
            exc_info=True,
            extra={"status_code": 500, "request": request},
        )
    email = mail.outbox[-1]
    parts = [email.subject, email.body] + [alt[0] for alt in email.alternatives]
    for canary in ("203.0.113.77", "Canary Browser", "198.51.100.77", "canary-cookie"):
        assert all(canary not in part for part in parts), canary
    assert "failed while storing an answer" in email.body


def test_a_celery_workers_log_lines_are_redacted_too(capsys):
    from celery.signals import setup_logging

    import surveys.celery  # noqa: F401  (connects the worker's logging)

    root = logging.getLogger()
    kept = root.handlers[:]
    root.handlers.clear()  # a worker process before Celery sets up its logging
    try:
        setup_logging.send(
            sender=None, loglevel="INFO", logfile=None, format="", colorize=False
        )
        logging.getLogger("celery.app.trace").error("mail for /s/i/%s/ failed", TOKEN)
        err = capsys.readouterr().err
    finally:
        root.handlers[:] = kept
    assert TOKEN not in err
    assert "mail for /s/i/[redacted]/ failed" in err
