"""The absolute budgets, under open-loop load on the real stack.

Usage::

    python benchmarks/open_loop.py [--reports 1000000] [--duration 120]
        [--dashboard-rate 4] [--keep-database]

Against PostgreSQL (``DATABASE_URL``, default a scratch database
``deniable_open_loop`` on 127.0.0.1, created and migrated if missing) and
Redis (``CELERY_BROKER_URL``, shared cache ``CACHE_URL``, default the broker's
URL), with the compose commands on 127.0.0.1 (gunicorn, ``gunicorn.conf.py``;
one Celery worker).  Per-address rate limits are off for the run (all the
load comes from one address).

1. Stores ``--reports`` reports of a one-question survey with COPY
   (``bulk.store_reports``), folds them into tallies and computes its
   snapshot: the survey whose dashboard is read.  A survey with one question
   of every kind is published for the respondents.
2. Capacity, closed loop, for 1 and for 2 web processes: ``--concurrency``
   clients each run respondents back to back (GET the answer page, randomize
   every private answer on the "device", POST the form as the page's script
   does) for ``--capacity-seconds``; capacity is completed respondents per
   second.  The trivial ``/ping`` view is timed the same way (information).
3. The budgets, open loop, with 2 web processes: respondents arrive at random
   (Poisson) at half the capacity measured with 2 web processes; each GETs
   the answer page at its arrival and POSTs ``--think`` seconds later.  A
   signed-in researcher reads the dashboard of the survey with ``--reports``
   reports at ``--dashboard-rate`` reads per second (Poisson).  Every request
   is timed from its *scheduled* start (``loops.open_loop``), so a server
   that falls behind is charged for the requests waiting on it.

It prints the machine, the load average before and after, capacity per web
process count, p50/p99 of each request against its budget, and exits 1 if a
budget is missed or a request failed.  Every process it starts is stopped
on exit, on failure and on Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlencode, urlsplit

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import (  # noqa: E402 (after the path is set)
    harness,
    http_client,
    loops,
    respondent,
)
from benchmarks.bulk import store_reports  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres:postgres@127.0.0.1:5432/deniable_open_loop"
# Milliseconds at the 99th percentile, under open-loop load at half capacity.
BUDGETS = {"respondent page GET": 50.0, "report POST": 100.0, "dashboard GET": 100.0}
DASHBOARD_TITLE = "Open-loop benchmark: dashboard"
RESEARCHER = "open-loop-researcher"
PASSWORD = "open-loop benchmark password"  # noqa: S105 (a scratch database's)


# --- the data ------------------------------------------------------------------------
def dashboard_survey(reports: int, rng: np.random.Generator) -> Any:
    """The researcher's one-question survey with ``reports`` reports stored,
    tallied and in its snapshot (reused from an earlier run when it has them)."""
    from surveys.accounts.models import User
    from surveys.analysis.tallies import services, snapshots
    from surveys.authoring.mechanisms import PrivacyConfig
    from surveys.authoring.models import Survey
    from surveys.collection.models import Report

    owner, created = User.objects.get_or_create(username=RESEARCHER)
    if created:
        owner.set_password(PASSWORD)
        owner.save()
    for survey in Survey.objects.filter(owner=owner, title=DASHBOARD_TITLE):
        if Report.objects.filter(survey=survey).count() == reports:
            return survey
        survey.delete()
    survey = harness.one_question_survey(
        owner, DASHBOARD_TITLE, PrivacyConfig(kind="yes_no", epsilon=1.0)
    )
    store_reports(survey, reports, rng)
    while services.tallies_refresh(survey_id=survey.pk).folded:
        pass
    snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
    return survey


# --- the requests --------------------------------------------------------------------
class Respondents:
    """Respondents of one survey: the page, then the form posted as the page's
    script posts it (each thread randomizing with its own generator)."""

    def __init__(self, port: int, path: str, seed: int):
        self.port, self.path = port, path
        self.mechanisms = respondent.Mechanisms()
        self._seeds = np.random.SeedSequence(seed)
        self._local = threading.local()
        self._lock = threading.Lock()

    def _rng(self) -> np.random.Generator:
        rng = getattr(self._local, "rng", None)
        if rng is None:
            with self._lock:
                (child,) = self._seeds.spawn(1)
            rng = self._local.rng = np.random.default_rng(child)
        return rng

    def page(self) -> tuple[dict[str, str], bytes] | None:
        """GET the answer page; the POST the device would send after it."""
        response = http_client.get(self.port, self.path)
        if response.status != 200:
            return None
        page = respondent.RespondPage(response.body.decode())
        _, body = respondent.form_body(page, self.mechanisms, self._rng())
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
            "Cookie": f"csrftoken={response.cookie('csrftoken') or ''}",
        }
        return headers, body

    def post(self, prepared: tuple[dict[str, str], bytes] | None) -> bool:
        if prepared is None:
            return False
        headers, body = prepared
        response = http_client.request(
            self.port, "POST", self.path, body=body, headers=headers
        )
        return response.status == 201

    def respondent(self, index: int) -> bool:
        """One whole respondent, back to back (the closed loop)."""
        return self.post(self.page())


def dashboard_path(survey: Any) -> str:
    from django.urls import reverse

    return reverse("analysis:dashboard", args=[survey.pk])


def sign_in(port: int, username: str, password: str) -> str:
    """The Cookie header of a session signed in through the sign-in page."""
    page = http_client.get(port, "/accounts/login/")
    csrf = page.cookie("csrftoken") or ""
    token = respondent.RespondPage(page.body.decode()).hidden["csrfmiddlewaretoken"]
    body = urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    answer = http_client.request(
        port,
        "POST",
        "/accounts/login/",
        body=body,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf}",
        },
    )
    session = answer.cookie("sessionid")
    if answer.status != 302 or not session:
        raise RuntimeError(f"sign-in refused: HTTP {answer.status}")
    return f"csrftoken={csrf}; sessionid={session}"


# --- the phases ----------------------------------------------------------------------
@dataclass(frozen=True)
class Closed:
    """A closed-loop phase: completions per second and latency (information)."""

    per_second: float
    p50_ms: float
    p99_ms: float


def closed_loop(action, concurrency: int, seconds: float) -> Closed:
    """``concurrency`` clients running ``action`` back to back for ``seconds``."""
    latencies: list[float] = []
    lock = threading.Lock()

    def timed(index: int) -> bool:
        started = time.perf_counter()
        ok = action(index)
        with lock:
            latencies.append(time.perf_counter() - started)
        return ok

    phase = loops.run_phase(
        concurrency=concurrency, duration=seconds, max_count=None, action=timed
    )
    return Closed(
        phase.completed / phase.seconds,
        harness.percentile(latencies, 50) * 1e3,
        harness.percentile(latencies, 99) * 1e3,
    )


def open_phase(
    *,
    respondents: Respondents,
    rate: float,
    think: float,
    dashboard: tuple[int, str, str],
    dashboard_rate: float,
    duration: float,
    rng: np.random.Generator,
) -> tuple[list[loops.Timed], float]:
    """Respondents at ``rate`` and dashboard reads at ``dashboard_rate``, open loop."""
    port, path, cookie = dashboard
    schedule: list[tuple[float, str, Any]] = []
    for at in loops.arrivals(rate, duration, rng):
        prepared: dict[str, Any] = {}
        ready = threading.Event()

        def get(prepared=prepared, ready=ready) -> bool:
            try:
                prepared["post"] = respondents.page()
            finally:
                ready.set()
            return prepared["post"] is not None

        def post(prepared=prepared, ready=ready) -> bool:
            ready.wait(timeout=http_client.HTTP_TIMEOUT)
            return respondents.post(prepared.get("post"))

        schedule.append((at, "respondent page GET", get))
        schedule.append((at + think, "report POST", post))

    def read() -> bool:
        response = http_client.request(port, "GET", path, headers={"Cookie": cookie})
        return response.status == 200 and b'data-field="n"' in response.body

    for at in loops.arrivals(dashboard_rate, duration, rng):
        schedule.append((at, "dashboard GET", read))
    return loops.open_loop(schedule, clients=128)


# --- the run -------------------------------------------------------------------------
def machine() -> str:
    """The machine the figures were measured on."""
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        (postgres,) = cursor.fetchone()
    return (
        f"{os.cpu_count()} cores ({model or platform.machine()}), "
        f"{platform.system()} {platform.release()}, Python "
        f"{platform.python_version()}, PostgreSQL {postgres}"
    )


def load_average() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def report_line(label: str, timings: list[loops.Timed]) -> tuple[str, bool]:
    """One request kind against its budget, and whether it is met."""
    mine = [t for t in timings if t.label == label]
    seconds = [t.seconds for t in mine]
    failed = sum(not t.ok for t in mine)
    p50 = harness.percentile(seconds, 50) * 1e3
    p99 = harness.percentile(seconds, 99) * 1e3
    met = p99 <= BUDGETS[label] and not failed and bool(mine)
    return (
        f"{label:<22}{len(mine):>8}{failed:>8}{p50:>9.1f}{p99:>9.1f}"
        f"{BUDGETS[label]:>9.0f}  {'met' if met else 'MISSED'}",
        met,
    )


def _raise_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=1_000_000)
    parser.add_argument("--duration", type=float, default=120, help="seconds")
    parser.add_argument("--think", type=float, default=1.0, help="seconds")
    parser.add_argument("--dashboard-rate", type=float, default=4.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--capacity-seconds", type=float, default=30)
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--keep-database", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    signal.signal(signal.SIGTERM, _raise_on_sigterm)
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    broker_url = os.environ.get("CELERY_BROKER_URL") or harness.DEFAULT_REDIS_URL
    cache_url = os.environ.get("CACHE_URL") or broker_url
    harness.ensure_database(database_url)
    harness.setup_django(database_url)
    rng = np.random.default_rng(args.seed)
    print(f"machine: {machine()}")
    print(f"load average before: {load_average()}")
    started = time.perf_counter()
    dashboard = dashboard_survey(args.reports, rng)
    survey = harness.create_survey()
    loaded = time.perf_counter() - started
    print(f"{args.reports} reports stored and tallied in {loaded:.0f} s")
    status = 1
    try:
        status = _measure(args, database_url, broker_url, cache_url, survey, dashboard)
        return status
    except KeyboardInterrupt:
        print("interrupted; every process it started is stopped", file=sys.stderr)
        return 130
    finally:
        if status == 0:
            shutil.rmtree(LOG_DIR, ignore_errors=True)
        else:
            print(f"server logs kept in {LOG_DIR}", file=sys.stderr)
        if not args.keep_database:
            _drop(database_url)


# The servers' logs, removed at the end of a run that met its budgets.
LOG_DIR = Path(tempfile.mkdtemp(prefix="deniable-open-loop-"))


def _stack(database_url: str, broker_url: str, cache_url: str, web: int):
    logs = LOG_DIR / f"web-{web}-{time.monotonic_ns()}"
    logs.mkdir()
    return harness.Stack(
        database_url=database_url,
        broker_url=broker_url,
        cache_url=cache_url,
        web_workers=web,
        celery_workers=1,
        log_dir=logs,
    )


def _measure(args, database_url, broker_url, cache_url, survey, dashboard) -> int:
    path = harness.respond_path(survey)
    capacity: dict[int, float] = {}
    print(f"{'closed loop (information)':<34}{'per s':>8}{'p50 ms':>9}{'p99 ms':>9}")
    for web in (1, 2):
        with _stack(database_url, broker_url, cache_url, web) as stack:
            respondents = Respondents(stack.port, path, args.seed + web)
            closed_loop(respondents.respondent, args.concurrency, 5)  # warm
            ping = closed_loop(
                lambda i, port=stack.port: http_client.get(port, "/ping").status == 200,
                args.concurrency,
                args.capacity_seconds / 2,
            )
            whole = closed_loop(
                respondents.respondent, args.concurrency, args.capacity_seconds
            )
        capacity[web] = whole.per_second
        for label, row in (
            (f"GET /ping, {web} web", ping),
            (f"respondents, {web} web", whole),
        ):
            print(
                f"{label:<34}{row.per_second:>8.1f}{row.p50_ms:>9.1f}{row.p99_ms:>9.1f}"
            )
        ratio = whole.per_second / ping.per_second
        print(f"  respondents/s ÷ trivial requests/s: {ratio:.3f}")
    rate = capacity[2] / 2
    with _stack(database_url, broker_url, cache_url, 2) as stack:
        respondents = Respondents(stack.port, path, args.seed)
        cookie = sign_in(stack.port, RESEARCHER, PASSWORD)
        reading = (stack.port, dashboard_path(dashboard), cookie)
        closed_loop(respondents.respondent, 2, 3)  # warm
        timings, late = open_phase(
            respondents=respondents,
            rate=rate,
            think=args.think,
            dashboard=reading,
            dashboard_rate=args.dashboard_rate,
            duration=args.duration,
            rng=np.random.default_rng(args.seed + 3),
        )
    print(
        f"open loop, 2 web processes: respondents arriving at {rate:.1f}/s (half of "
        f"{capacity[2]:.1f}), dashboard reads at {args.dashboard_rate:g}/s, "
        f"{args.duration:g} s; latency from each request's scheduled start"
    )
    print(f"{'':<22}{'count':>8}{'failed':>8}{'p50 ms':>9}{'p99 ms':>9}{'budget':>9}")
    met = True
    for label in BUDGETS:
        line, ok = report_line(label, timings)
        print(line)
        met &= ok
    print(
        f"schedule lag at worst: {late * 1e3:.1f} ms (the load generator's own delay)"
    )
    print(
        f"capacity: {capacity[1]:.1f} respondents/s with 1 web process, "
        f"{capacity[2]:.1f} with 2"
    )
    print(f"load average after: {load_average()}")
    return 0 if met else 1


def _drop(database_url: str) -> None:
    """Drop the scratch database (``--keep-database`` keeps it for a rerun)."""
    from django.db import connections

    from benchmarks.run_all import drop_database

    connections.close_all()
    drop_database(database_url)
    print(f"dropped database {urlsplit(database_url).path.lstrip('/')}")


if __name__ == "__main__":
    sys.exit(main())
