"""Journeys through the running site in headless Chromium.

The ``browser`` fixture (the system's Chromium through Playwright) comes from
``tests/conftest.py``; these fixtures add a researcher made the way an operator
makes one and the place screenshots go.  Rate limits stay on, as in
production (a journey sends far fewer answers than they allow).
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.conftest import ROOT
from tests.surveys.collection.smtp_server import SmtpServer

ARTIFACTS = ROOT / "test-artifacts" / "journeys"
USERNAME = "ada"
PASSWORD = "correct horse battery staple 42"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(autouse=True)
def _fresh_rate_limit_counters(settings) -> None:
    """Rate limits stay as configured (on); their counters start empty."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"journey-{uuid.uuid4()}",
        }
    }


@pytest.fixture
def researcher(monkeypatch, django_user_model):
    """A researcher account made with ``manage.py create_researcher --no-input``."""
    monkeypatch.setenv("RESEARCHER_PASSWORD", PASSWORD)
    call_command(
        "create_researcher", USERNAME, "--email", "ada@example.org", "--no-input"
    )
    return django_user_model.objects.get(username=USERNAME)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def sign_in(page, base_url: str) -> None:
    """Sign in through the login page, with the keyboard."""
    page.goto(base_url + "/accounts/login/")
    page.get_by_label("Username").fill(USERNAME)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url("**/surveys/")


def download(page, link) -> tuple[str, bytes]:
    """Click ``link`` and return the downloaded file's suggested name and bytes."""
    with page.expect_download() as event:
        link.click()
    done = event.value
    return done.suggested_filename, Path(done.path()).read_bytes()


def answer_page(browser, live_server, survey, viewport):
    """A respondent's answer page, past the consent page, once the device is
    ready: (context, page, the POST requests it sends, its script errors)."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport=viewport)
    posts: list = []
    context.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + f"/s/{survey.public_token}/")
    page.get_by_role("link", name="Take part").click()
    expect(page.get_by_role("button", name="Send my answers")).to_be_enabled()
    return context, page, posts, errors


@pytest.fixture
def smtp(settings):
    """A real SMTP server of the test's own that Django sends to; its recording."""
    with SmtpServer() as server:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        yield server.recording


def mail_link(message, pattern: str) -> str:
    """The first match of ``pattern`` in a received mail's plain-text body."""
    text = message.get_body(preferencelist=("plain",)).get_content()
    return re.search(pattern, text).group(0)
