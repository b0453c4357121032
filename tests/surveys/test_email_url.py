"""EMAIL_URL configures Django's email framework; errors never show the password."""

import traceback

import pytest
from django.core.exceptions import ImproperlyConfigured

from surveys.email_url import parse_email_url
from tests.conftest import project_settings

SMTP = "django.core.mail.backends.smtp.EmailBackend"


def test_empty_url_means_console_backend():
    config = parse_email_url("")
    assert config.backend == "django.core.mail.backends.console.EmailBackend"


def test_locmem_url_selects_memory_backend():
    assert parse_email_url("locmem://").backend == (
        "django.core.mail.backends.locmem.EmailBackend"
    )


def test_file_url_selects_file_backend_with_its_directory():
    config = parse_email_url("file:///var/spool/deniable-mail")
    assert config.backend == "django.core.mail.backends.filebased.EmailBackend"
    assert config.file_path == "/var/spool/deniable-mail"


def test_smtp_url_gives_host_port_and_decoded_credentials():
    config = parse_email_url("smtp://mailer:p%40ss%3Aword@mail.example.org:2525")
    assert (config.backend, config.host) == (SMTP, "mail.example.org")
    assert config.port == 2525
    assert (config.user, config.password) == ("mailer", "p@ss:word")
    assert not config.use_tls and not config.use_ssl


@pytest.mark.parametrize(
    ("url", "port", "tls", "ssl"),
    [
        ("smtp://mail.example.org", 25, False, False),
        ("smtp+tls://mail.example.org", 587, True, False),
        ("smtp+ssl://mail.example.org", 465, False, True),
    ],
)
def test_smtp_schemes_choose_default_port_and_encryption(url, port, tls, ssl):
    config = parse_email_url(url)
    assert (config.port, config.use_tls, config.use_ssl) == (port, tls, ssl)


@pytest.mark.parametrize(
    "url",
    [
        "smtps://user:hunter2secret@mail.example.org",
        "smtp://user:hunter2secret@mail.example.org:notaport",
        "smtp://user:hunter2secret@:25",
    ],
)
def test_bad_url_is_refused_without_revealing_the_password(url):
    with pytest.raises(ImproperlyConfigured, match="EMAIL_URL") as refused:
        parse_email_url(url)
    assert "hunter2secret" not in str(refused.value)
    assert "***" in str(refused.value)


def test_file_url_without_a_directory_is_refused():
    with pytest.raises(ImproperlyConfigured, match="names no directory"):
        parse_email_url("file://")


def test_settings_refuse_to_start_on_a_bad_email_url_and_mask_the_password():
    password = "hunter2secret"  # named, so no line of this test shows it
    with pytest.raises(ImproperlyConfigured) as refused:
        project_settings(EMAIL_URL=f"smtps://user:{password}@mail.example.org")
    # What start-up would print: the traceback, with any exception it chains.
    printed = "".join(traceback.format_exception(refused.value))
    assert "EMAIL_URL" in printed
    assert password not in printed


def test_settings_without_email_url_print_mail_to_the_console():
    assert project_settings()["EMAIL_BACKEND"] == (
        "django.core.mail.backends.console.EmailBackend"
    )
