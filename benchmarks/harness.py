"""What every benchmark of the running stack shares: one harness, no copies.

* the scratch database (:func:`ensure_database`, :func:`setup_django`) and a
  survey with one question of every kind (:func:`create_survey`);
* the stack: gunicorn and Celery workers started from the compose commands on
  127.0.0.1 against a given PostgreSQL and Redis (:class:`Stack`), every
  process in a group of its own, stopped by its own PID however the run ends;
* HTTP without a client library (:func:`request`: one request on a new
  connection, as gunicorn's sync workers serve them, timed end to end);
* a respondent as the browser is one (:class:`RespondPage` reads the answer
  page; :func:`form_body` randomizes every private answer with the Python
  reference mechanism and builds the form the page's script posts);
* open-loop load (:func:`open_loop`): requests started on a schedule fixed in
  advance, each timed from its *scheduled* start, so a server that falls
  behind is charged for the wait it causes (no coordinated omission), and
  :func:`percentile`.

A benchmark adds its own scenario on top (``open_loop.py``: the absolute
budgets; ``load.py``: closed-loop ingestion with consistency checks).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

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
HTTP_TIMEOUT = 60.0


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


# --- HTTP -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Response:
    """A whole HTTP answer and how long it took (seconds)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    seconds: float

    def cookie(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == "set-cookie" and value.startswith(f"{name}="):
                return value.split(";", 1)[0].split("=", 1)[1]
        return None


def request(
    port: int,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = HTTP_TIMEOUT,
) -> Response:
    """One request on a new connection to 127.0.0.1:``port``, timed end to end."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    return Response(
        response.status, response.getheaders(), data, time.perf_counter() - started
    )


def get(port: int, path: str, timeout: float = HTTP_TIMEOUT) -> Response:
    """A GET with no headers of its own (a first visit: no cookies)."""
    return request(port, "GET", path, timeout=timeout)


# --- a respondent ---------------------------------------------------------------------
class RespondPage(HTMLParser):
    """What a respondent's browser reads from the respond page."""

    def __init__(self, html: str):
        super().__init__()
        self.hidden: dict[str, str] = {}
        self.choices: dict[str, list[str]] = defaultdict(list)  # radios, checkboxes
        self.multiple: set[str] = set()  # names of checkbox groups
        self.numbers: dict[str, str] = {}  # other named inputs: their minimum
        self._config: list[str] | None = None
        self.config_text = ""
        self.csrf_cookie = ""  # from the response's Set-Cookie
        self.feed(html)
        self.close()
        self.config: dict[str, Any] = json.loads(self.config_text or "{}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        name = values.get("name")
        if tag == "input" and name:
            kind = values.get("type", "text").lower()
            if kind == "hidden":
                self.hidden[name] = values.get("value", "")
            elif kind in {"radio", "checkbox"}:
                self.choices[name].append(values.get("value", ""))
                if kind == "checkbox":
                    self.multiple.add(name)
            else:
                self.numbers[name] = values.get("min") or "0"
        elif tag == "script" and values.get("id") == "device-config":
            self._config = []

    def handle_data(self, data: str) -> None:
        if self._config is not None:
            self._config.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._config is not None:
            self.config_text = "".join(self._config)
            self._config = None


class Mechanisms:
    """Compiled mechanisms by spec, shared by every client thread."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, spec: dict[str, Any]) -> Any:
        import ldp

        key = json.dumps(spec, sort_keys=True)
        with self._lock:
            if key not in self._built:
                self._built[key] = ldp.build(spec)
            return self._built[key]


def true_answer(
    question: dict[str, Any], mechanism: Any, rng: np.random.Generator
) -> int | list[int]:
    """A random true answer in the input domain of a private question."""
    if question["kind"] == "multi_select":
        most = question.get("max_selections") or mechanism.k
        count = int(rng.integers(0, most + 1))
        return sorted(rng.choice(mechanism.k, size=count, replace=False).tolist())
    size = mechanism.m if hasattr(mechanism, "m") else mechanism.k
    return int(rng.integers(0, size))


def report(question: dict[str, Any], mechanism: Any, rng: np.random.Generator) -> str:
    """The JSON report the browser would send for one private question."""
    answer = true_answer(question, mechanism, rng)
    values = [answer] if question["kind"] == "multi_select" else np.asarray([answer])
    payload = mechanism.randomize(values, rng).tolist()[0]
    return json.dumps(payload, separators=(",", ":"))


def form_body(
    page: RespondPage, mechanisms: Mechanisms, rng: np.random.Generator
) -> tuple[str, bytes]:
    """A new idempotency key and the urlencoded form the page's script posts."""
    fields: list[tuple[str, str]] = []
    reports = {
        f"q{question['id']}_report": report(
            question, mechanisms.get(question["spec"]), rng
        )
        for question in page.config.get("questions", [])
    }
    key = str(uuid.uuid4())
    for name, value in page.hidden.items():
        if name == "idempotency_key":
            value = key
        fields.append((name, reports.get(name, value)))
    for name, options in page.choices.items():
        # One option of a radio group, or one ticked box of a checkbox group.
        fields.append((name, str(rng.choice(options))))
    fields.extend(page.numbers.items())
    return key, urlencode(fields).encode()


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share / 100 * len(ordered)) - 1)]


# --- closed-loop load -----------------------------------------------------------
@dataclass(frozen=True)
class Phase:
    """One timed phase: how many actions completed, in how long."""

    completed: int
    seconds: float
    client_cpu: float  # this process's CPU seconds per wall second
    crashes: tuple[str, ...] = ()  # exceptions raised by the action itself


def run_phase(
    *,
    concurrency: int,
    duration: float,
    max_count: int | None,
    action: Callable[[int], bool],
) -> Phase:
    """``concurrency`` threads each call ``action(thread_index)`` until
    ``duration`` seconds pass or ``max_count`` actions have started.

    ``action`` returns True when it completed its work.
    """
    deadline = time.monotonic() + duration
    started = 0
    completed = 0
    crashes: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def loop(index: int) -> None:
        nonlocal started, completed
        while not stop.is_set() and time.monotonic() < deadline:
            with lock:
                if max_count is not None and started >= max_count:
                    return
                started += 1
            try:
                done = action(index)
            except Exception as error:  # a bug in the client: report, go on
                with lock:
                    crashes.append(f"{type(error).__name__}: {error}")
                continue
            if done:
                with lock:
                    completed += 1

    threads = [
        threading.Thread(target=loop, args=(i,), daemon=True)
        for i in range(concurrency)
    ]
    cpu, wall = time.process_time(), time.perf_counter()
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    finally:
        stop.set()
    wall = time.perf_counter() - wall
    cpu = (time.process_time() - cpu) / wall
    return Phase(completed, wall, cpu, tuple(crashes))


# --- open-loop load -------------------------------------------------------------
@dataclass(frozen=True)
class Timed:
    """One scheduled action: its label, how long after its scheduled start it
    finished (seconds, the wait for a free client included), and whether it
    succeeded."""

    label: str
    seconds: float
    ok: bool


def arrivals(rate: float, duration: float, rng: np.random.Generator) -> list[float]:
    """Poisson arrival times (seconds from the start) at ``rate`` per second."""
    times: list[float] = []
    now = float(rng.exponential(1 / rate))
    while now < duration:
        times.append(now)
        now += float(rng.exponential(1 / rate))
    return times


def open_loop(
    schedule: Iterable[tuple[float, str, Callable[[], bool]]],
    *,
    clients: int = 64,
) -> tuple[list[Timed], float]:
    """Run each ``(at, label, action)`` at ``at`` seconds from now, on a pool
    of ``clients`` threads; ``action()`` returns whether it succeeded.

    Every action is timed from its scheduled start, not from when a thread
    took it: when the server (or the pool) falls behind, the actions queued
    meanwhile are charged for their wait.  Returns the timings and how late
    the schedule ran at worst (seconds a thread took an action after its
    time; large values mean the load generator, not the server, was short).
    """
    timings: list[Timed] = []
    lock = threading.Lock()
    worst_start = 0.0
    start = time.perf_counter() + 0.5

    def run(at: float, label: str, action: Callable[[], bool]) -> None:
        nonlocal worst_start
        scheduled = start + at
        began = time.perf_counter()
        try:
            ok = action()
        except (OSError, http.client.HTTPException):
            ok = False
        finished = time.perf_counter()
        with lock:
            worst_start = max(worst_start, began - scheduled)
            timings.append(Timed(label, finished - scheduled, ok))

    with ThreadPoolExecutor(max_workers=clients) as pool:
        for at, label, action in sorted(schedule, key=lambda item: item[0]):
            delay = start + at - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(run, at, label, action)
    return timings, worst_start
