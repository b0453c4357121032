"""Shared fixtures: real subprocesses of the project's own commands, on loopback."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
VENV_BIN = Path(PYTHON).parent


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def clean_env(**overrides: str) -> dict[str, str]:
    """The current environment without Deniable's settings, plus ``overrides``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key
        not in {
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            "CELERY_RESULT_BACKEND",
            "DENIABLE_PRODUCTION",
            "DEBUG",
            "SECRET_KEY",
            "ALLOWED_HOSTS",
        }
    }
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(overrides)
    return env


def run_manage(*args: str, env: dict[str, str], timeout: float = 120):
    """Run ``python manage.py ARGS`` in a subprocess and return the completed run."""
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def wait_for_http(url: str, timeout: float = 60) -> bytes:
    """Poll ``url`` until it answers 200 and return the body."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310
                return response.read()
        except (urllib.error.URLError, ConnectionError, OSError) as error:
            last_error = error
            time.sleep(0.25)
    raise AssertionError(f"{url} did not answer within {timeout}s: {last_error}")


class Started:
    """A process group this test started, stopped by its own PID and nothing else."""

    def __init__(
        self, args: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT
    ):
        self.log_path = log
        self._log = log.open("w")
        self.process = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        self._log.flush()
        return self.log_path.read_text()

    def stop(self, timeout: float = 30) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=timeout)
        self._log.close()


@pytest.fixture
def start_process(tmp_path: Path) -> Iterator:
    """Start commands as subprocesses; every one is stopped when the test ends."""
    started: list[Started] = []

    def start(
        args: list[str],
        env: dict[str, str],
        name: str = "process",
        cwd: Path = ROOT,
    ) -> Started:
        proc = Started(args, env, tmp_path / f"{name}-{len(started)}.log", cwd)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


@pytest.fixture
def test_database_url(django_db_blocker) -> str:
    """A DATABASE_URL for the database this test session uses (for subprocesses)."""
    from django.db import connection

    with django_db_blocker.unblock():
        connection.ensure_connection()
    params = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{params['NAME']}"
    user = params.get("USER") or "postgres"
    password = f":{params['PASSWORD']}" if params.get("PASSWORD") else ""
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{params['NAME']}"


@pytest.fixture
def redis_url() -> str:
    """The real Redis the tests use (a database number of its own)."""
    return os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def browser():
    """Headless Chromium (the system's, through Playwright), closed after the test."""
    from tests.browser import headless_chromium

    with headless_chromium() as launched:
        yield launched
