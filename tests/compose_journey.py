"""The compose stack's journey, over HTTP only: respondents answer a survey, the
researcher's dashboard shows them, an export file is asked for, written by a
worker and downloaded through a web process.

Its setup runs two management commands in the ``web`` service's environment
(:data:`RESEARCHER_COMMAND`, :data:`SURVEY_COMMAND`), as
``docker compose run --rm web python manage.py ...`` would.  Two callers:

- ``tests/system/servers/test_compose_stack.py`` runs the compose services as
  processes on the test's PostgreSQL and Redis, and :func:`journey` against them;
- ``scripts/compose-journey`` runs ``python -m tests.compose_journey``, which
  brings up the real compose stack under a project name of its own with Docker,
  walks the same :func:`journey` and removes the project (containers and
  volumes) again.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import shlex
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from benchmarks.http_client import Response, request
from benchmarks.respondent import Mechanisms
from tests.own_servers import fetch_form, header, new_answers, post_form

ROOT = Path(__file__).resolve().parent.parent
RESPONSES = 3
EXPORT = "reports_csv"
PASSWORD_VARIABLE = "RESEARCHER_PASSWORD"  # what create_researcher reads
OWNER_VARIABLE = "JOURNEY_USERNAME"
# manage.py arguments: the researcher (password from the environment), then a
# published survey of theirs (the demo's questions), printed as JSON.
RESEARCHER_COMMAND = ["create_researcher", "{username}", "--no-input"]
SURVEY_COMMAND = [
    "shell",
    "-c",
    "import json, os\n"
    "from django.contrib.auth import get_user_model\n"
    "from django.urls import reverse\n"
    "from surveys.collection import demo\n"
    f"owner = get_user_model().objects.get(username=os.environ['{OWNER_VARIABLE}'])\n"
    "survey, _ = demo.demo_survey(owner=owner)\n"
    "print(json.dumps({'survey': survey.pk, 'respond': "
    "reverse('collection:respond', args=[survey.public_token])}))\n",
]
TIMEOUT = 120.0


@dataclass(frozen=True)
class Researcher:
    username: str
    password: str = field(default_factory=lambda: secrets.token_urlsafe(18))


@dataclass(frozen=True)
class Setup:
    """The survey the setup commands made: its id and its answer page."""

    survey: int
    respond: str


Manage = Callable[[list[str], dict[str, str]], str]
"""Runs ``manage.py ARGS`` in the web service's environment plus the given
variables and returns its standard output (raising if it fails)."""


def set_up(manage: Manage, researcher: Researcher) -> Setup:
    """The researcher and their published survey, made by management commands."""
    args = [part.format(username=researcher.username) for part in RESEARCHER_COMMAND]
    manage(args, {PASSWORD_VARIABLE: researcher.password})
    output = manage(SURVEY_COMMAND, {OWNER_VARIABLE: researcher.username})
    found = json.loads(output.strip().splitlines()[-1])
    return Setup(survey=int(found["survey"]), respond=str(found["respond"]))


class Browser:
    """A researcher's cookies, kept by hand: the production settings mark them
    Secure, and the journey talks plain HTTP to a server without TLS."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}

    def send(self, method: str, path: str, form: dict[str, str] | None = None):
        headers = {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urlencode(form).encode()
        response = request(
            self.port, method, path, body=body, headers=headers, timeout=60
        )
        for key, value in response.headers:
            if key.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        return response

    def form_token(self, path: str) -> str:
        """The CSRF token of the first form on the page at ``path``."""
        page = self.send("GET", path)
        assert page.status == 200, (path, page.status, page.body[:300])
        found = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
        assert found, f"no form on {path}"
        return found.group(1).decode()

    def sign_in(self, researcher: Researcher) -> None:
        token = self.form_token("/accounts/login/")
        signed = self.send(
            "POST",
            "/accounts/login/",
            {
                "username": researcher.username,
                "password": researcher.password,
                "csrfmiddlewaretoken": token,
            },
        )
        assert signed.status == 302, (signed.status, signed.body[:500])
        assert "sessionid" in self.cookies, signed.headers


def wait_until(what: str, ready: Callable[[], bool], timeout: float = TIMEOUT):
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(0.5)


def answer(port: int, respond: str, count: int) -> None:
    """``count`` respondents answer, each as the page's script sends it."""
    mechanisms = Mechanisms()
    for seed in range(count):
        page = fetch_form(port, respond)
        _, body = new_answers(page, mechanisms, seed)
        sent = post_form(port, respond, page, body)
        assert sent.status == 201, (sent.status, sent.body[:500])


def dashboard_responses(browser: Browser, survey: int) -> int:
    """The count the dashboard shows (its live fragment, as dashboard.js reads it)."""
    live = browser.send("GET", f"/results/{survey}/live/")
    assert live.status == 200, (live.status, live.body[:300])
    return int(json.loads(live.body)["responses"])


def export_file(browser: Browser, survey: int, kind: str = EXPORT) -> Response:
    """Ask for an export file from the dashboard, wait for its link, download it."""
    dashboard = f"/results/{survey}/"
    asked = browser.send(
        "POST",
        f"/results/{survey}/exports/",
        {"export": kind, "csrfmiddlewaretoken": browser.form_token(dashboard)},
    )
    assert asked.status == 302, (asked.status, asked.body[:500])
    link = re.compile(rf'href="(/results/{survey}/exports/\d+/download)"'.encode())
    found: list[str] = []

    def written() -> bool:
        page = browser.send("GET", dashboard).body
        match = link.search(page)
        if match:
            found.append(match.group(1).decode())
        return bool(found)

    wait_until("the export file's download link on the dashboard", written)
    return browser.send("GET", found[0])


def journey(port: int, setup: Setup, researcher: Researcher) -> Response:
    """Answer, see the dashboard count them, download an export; the download."""
    answer(port, setup.respond, RESPONSES)
    browser = Browser(port)
    browser.sign_in(researcher)
    wait_until(
        f"the dashboard showing {RESPONSES} responses",
        lambda: dashboard_responses(browser, setup.survey) >= RESPONSES,
    )
    download = export_file(browser, setup.survey)
    assert download.status == 200, (download.status, download.body[:300])
    assert header(download, "Content-Disposition"), download.headers
    return download


# --- the real compose stack (scripts/compose-journey) -----------------------------
def _compose(project: str, env_file: Path, *args: str, **run: object):
    command = ["docker", "compose", "--project-name", project]
    command += ["--env-file", str(env_file), *args]
    print("+", shlex.join(command), flush=True)
    return subprocess.run(command, cwd=ROOT, check=True, **run)  # type: ignore[call-overload]


def run_compose_stack(port: int, keep: bool) -> None:
    """Bring up a compose project of its own, walk the journey, remove it."""
    project = f"deniable-journey-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as scratch:
        env_file = Path(scratch) / "journey.env"
        env_file.write_text(
            f"SECRET_KEY={secrets.token_urlsafe(64)}\n"
            "SECURE_SSL_REDIRECT=false\n"
            f"PORT={port}\n"
            "SNAPSHOT_MIN_NEW_SUBMISSIONS=1\n"
            # The app services read this file too (env_file), not the checkout's .env.
            f"DENIABLE_ENV_FILE={env_file}\n"
        )
        try:
            _compose(project, env_file, "up", "--build", "--detach")
            wait_until(
                "the web service's /healthz",
                lambda: _healthy(port),
                timeout=300,
            )

            def manage(args: list[str], variables: dict[str, str]) -> str:
                flags = [f"--env={name}={value}" for name, value in variables.items()]
                ran = _compose(
                    project,
                    env_file,
                    "run",
                    "--rm",
                    "--no-TTY",
                    *flags,
                    "web",
                    "python",
                    "manage.py",
                    *args,
                    capture_output=True,
                    text=True,
                )
                return str(ran.stdout)

            researcher = Researcher(f"journey-{uuid.uuid4().hex[:6]}")
            setup = set_up(manage, researcher)
            download = journey(port, setup, researcher)
            print(f"downloaded {len(download.body)} bytes of {EXPORT}: journey passed")
        finally:
            if not keep:
                _compose(project, env_file, "down", "--volumes")


def _healthy(port: int) -> bool:
    try:
        return request(port, "GET", "/healthz", timeout=5).status == 200
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765, help="host port (8765)")
    parser.add_argument(
        "--keep", action="store_true", help="leave the project running afterwards"
    )
    args = parser.parse_args(argv)
    run_compose_stack(args.port, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
