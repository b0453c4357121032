"""What every benchmark of the running stack shares: one harness, no copies.

* the scratch database (:func:`ensure_database`, :func:`setup_django`) and a
  survey with one question of every kind (:func:`create_survey`);
* the stack: gunicorn and Celery workers started from the compose commands on
  127.0.0.1 against a given PostgreSQL and Redis (:class:`Stack`), every
  process in a group of its own, stopped by its own PID however the run ends;
* :func:`percentile`, the nearest-rank percentile every benchmark reports.

Beside it: ``http_client`` (HTTP without a client library: one request on a
new connection, timed end to end), ``respondent`` (a respondent as the
browser is one: the answer page read, every private answer randomized by the
Python reference mechanism into the form the page's script posts) and
``loops`` (closed-loop phases and open-loop schedules timed from their
scheduled start).  A benchmark adds its own scenario on top
(``open_loop.py``: the absolute budgets; ``load.py``: closed-loop ingestion
with consistency checks).
"""

from __future__ import annotations

import contextlib
import http.client
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.http_client import get  # noqa: E402 (after the path is set)

# The exec-form commands of the compose ``web`` and ``worker`` services
# (tests/benchmarks checks that they match docker-compose.yml).
WEB_COMMAND = ["gunicorn", "--config", "gunicorn.conf.py", "surveys.wsgi"]
WORKER_COMMAND = ["celery", "--app", "surveys", "worker", "--loglevel", "INFO"]

DEFAULT_DATABASE_URL = "postgres://postgres:postgres@127.0.0.1:5432/deniable_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
# All the load comes from 127.0.0.1, so per-address rate limits would turn it
# away; they are switched off for the benchmark's server processes only.
RATE_LIMITS_OFF = {"RATE_LIMITS_ENABLED": "false"}
# Settings the benchmark sets itself; inherited values are dropped.
OWN_SETTINGS = {
    "DJANGO_SETTINGS_MODULE",  # a test run's tests.settings: not for servers
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "CACHE_URL",
    "DENIABLE_PRODUCTION",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "GUNICORN_BIND",
    "WEB_CONCURRENCY",
}


# --- the database ---------------------------------------------------------------------
def ensure_database(url: str) -> bool:
    """Create the PostgreSQL database named in ``url`` if it does not exist.

    Returns True when it was created now.
    """
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not parts.scheme.startswith("postgres") or not name:
        raise ValueError(f"{url!r} is not a postgres://…/name URL")
    maintenance = parts._replace(path="/postgres").geturl()
    with psycopg.connect(maintenance, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if exists:
            return False
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return True


def setup_django(database_url: str) -> None:
    """Configure Django in this process for ``database_url`` and migrate it."""
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def create_survey() -> Any:
    """A new published survey with the demo's questions (one of every kind).

    Needs Django set up.  Returns the Survey.
    """
    from surveys.accounts.models import User
    from surveys.authoring import services as authoring
    from surveys.collection.demo import DEMO_QUESTIONS

    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:12]}")
    survey = authoring.survey_create(
        owner=owner,
        title="Load benchmark",
        epsilon_budget=8.0,
        planned_respondents=1000,
    )
    for text, config, _ in DEMO_QUESTIONS:
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=config,
            not_private_acknowledged=not config.is_private,
        )
    return authoring.survey_publish(survey=survey, user=owner)


def one_question_survey(owner: Any, title: str, privacy: Any) -> Any:
    """A new published survey of ``owner`` with one question (``privacy``, a
    ``PrivacyConfig``), the shape ``bulk.store_reports`` fills."""
    from surveys.authoring import services as authoring

    survey = authoring.survey_create(owner=owner, title=title)
    authoring.question_create(survey=survey, text=title, privacy=privacy)
    return authoring.survey_publish(survey=survey, user=owner)


def respond_path(survey: Any) -> str:
    """The public respond URL path of ``survey``."""
    from django.urls import reverse

    return reverse("collection:respond", args=[survey.public_token])


# --- processes ------------------------------------------------------------------------
class Process:
    """A command started in a process group of its own, stopped by its own PID."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path):
        self.name = name
        self.log_path = log
        self._log = log.open("w")
        self.process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        """Everything the process printed so far."""
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 30) -> None:
        """SIGTERM the process group, then SIGKILL it if it lingers."""
        if self.running():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=timeout)
        self._log.close()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def service_env(**overrides: str) -> dict[str, str]:
    """This environment without Deniable's settings, the venv first on PATH,
    rate limits off, DEBUG off, plus ``overrides``."""
    env = {k: v for k, v in os.environ.items() if k not in OWN_SETTINGS}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(RATE_LIMITS_OFF)
    env["DEBUG"] = "false"
    env.update(overrides)
    return env


class Stack:
    """gunicorn and Celery workers on 127.0.0.1, as a context manager.

    Every process started is stopped when the block exits, however it exits.
    """

    def __init__(
        self,
        *,
        database_url: str,
        broker_url: str,
        cache_url: str | None = None,
        web_workers: int = 3,
        celery_workers: int = 2,
        worker_concurrency: int = 1,
        log_dir: Path | None = None,
        env: dict[str, str] | None = None,
        web_settings: str | None = None,
    ):
        self.database_url = database_url
        self.env = env or {}
        self.broker_url = broker_url
        self.cache_url = cache_url or broker_url
        self.web_workers = web_workers
        self.celery_workers = celery_workers
        self.worker_concurrency = worker_concurrency
        self.log_dir = log_dir or Path(tempfile.mkdtemp(prefix="deniable-load-"))
        # Another settings module for gunicorn only (e.g. one adding baseline views).
        self.web_settings = web_settings
        self.port = free_port()
        self.processes: list[Process] = []

    def _env(self, **extra: str) -> dict[str, str]:
        return service_env(
            DATABASE_URL=self.database_url,
            CELERY_BROKER_URL=self.broker_url,
            CACHE_URL=self.cache_url,
            **{**self.env, **extra},
        )

    def _start(self, name: str, args: list[str], env: dict[str, str]) -> Process:
        process = Process(name, args, env, self.log_dir / f"{name}.log")
        self.processes.append(process)
        return process

    def __enter__(self) -> Stack:
        try:
            self._start(
                "web",
                WEB_COMMAND,
                self._env(
                    GUNICORN_BIND=f"127.0.0.1:{self.port}",
                    WEB_CONCURRENCY=str(self.web_workers),
                    **(
                        {"DJANGO_SETTINGS_MODULE": self.web_settings}
                        if self.web_settings
                        else {}
                    ),
                ),
            )
            tag = uuid.uuid4().hex[:8]
            for index in range(self.celery_workers):
                self._start(
                    f"worker-{index}",
                    [
                        *WORKER_COMMAND,
                        "--concurrency",
                        str(self.worker_concurrency),
                        "--hostname",
                        f"bench-{tag}-{index}@%h",
                    ],
                    self._env(),
                )
            self._wait_until_ready(timeout=90)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop every process this stack started (its own PIDs only)."""
        for process in reversed(self.processes):
            process.stop()

    def _wait_until_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        waiting = list(self.processes)
        while waiting and time.monotonic() < deadline:
            for process in list(waiting):
                if not process.running():
                    raise RuntimeError(
                        f"{process.name} exited early:\n{process.output()[-4000:]}"
                    )
                if process.name == "web":
                    with contextlib.suppress(OSError, http.client.HTTPException):
                        if get(self.port, "/ping", timeout=2).status == 200:
                            waiting.remove(process)
                elif " ready." in process.output():
                    waiting.remove(process)
            time.sleep(0.2)
        if waiting:
            names = ", ".join(p.name for p in waiting)
            raise RuntimeError(f"not ready after {timeout:.0f} s: {names}")

    def logs(self) -> dict[str, str]:
        """Each process's output so far, by name."""
        return {process.name: process.output() for process in self.processes}


# --- figures -------------------------------------------------------------------------
def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share / 100 * len(ordered)) - 1)]
