"""Journeys through the running site in headless Chromium.

The ``browser`` fixture (the system's Chromium through Playwright) comes from
``tests/conftest.py``; here it is wrapped in the accessibility gate
(``tests/axe_gate.py``): axe-core checks every page a journey loads, at desktop
and at phone size, and the test fails on any violation.  These fixtures also
add a researcher made the way an operator makes one and the place screenshots
go.  Rate limits stay on, as in production (a journey sends far fewer answers
than they allow).
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.axe_gate import AxeGate, GatedBrowser, gate_actions
from tests.conftest import ROOT
from tests.surveys.invitations.smtp_server import SmtpServer

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
def axe_gate(monkeypatch, request):
    """The accessibility gate of this test: every Playwright action first checks
    the pages that loaded a new document.  With ``AXE_GATE_TIMES`` set to a file
    name, a line per test (test id, seconds spent in axe, pages checked) is
    appended to that file, to measure what the gate costs."""
    gate = AxeGate(desktop=DESKTOP, phone=PHONE)
    with gate_actions(gate, monkeypatch):
        yield gate
    times = os.environ.get("AXE_GATE_TIMES")
    if times:
        with open(times, "a", encoding="utf-8") as out:
            out.write(
                f"{request.node.nodeid}\t{gate.seconds:.3f}\t{len(gate.checked)}\n"
            )


@pytest.fixture
def browser(browser, axe_gate):
    """Headless Chromium whose every page passes axe at desktop and phone size."""
    yield GatedBrowser(browser, axe_gate)
    axe_gate.assert_clean()


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
