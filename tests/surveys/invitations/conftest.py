"""The invitation tests use collection's researcher and survey fixtures, and
a real SMTP server (aiosmtpd)."""

import pytest

from tests.surveys.collection.conftest import (  # noqa: F401  (fixtures)
    kinds_survey,
    researcher,
    survey,
)
from tests.surveys.invitations.smtp_server import SmtpServer


@pytest.fixture
def smtp(settings):
    with SmtpServer() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST = "127.0.0.1"
        settings.EMAIL_PORT = server.port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        settings.EMAIL_RETRY_SECONDS = 0
        yield server.recording
