"""Ingestion under load on the real stack, against a trivial view in the same run.

Usage::

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/deniable_bench \
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 \
        python benchmarks/load.py [--concurrency 32] [--duration 60] \
            [--max-submissions N] [--web-workers 3] [--celery-workers 2]

It starts the compose ``web`` command (gunicorn, ``gunicorn.conf.py``) and
``--celery-workers`` copies of the compose ``worker`` command on 127.0.0.1,
against the given PostgreSQL database (created and migrated if missing; the
default is ``deniable_bench`` on 127.0.0.1) and Redis (``CELERY_BROKER_URL``,
shared cache ``CACHE_URL``, default: the broker's URL).  It publishes a survey
with one question of every kind, then, with ``--concurrency`` concurrent
clients:

1. GETs the trivial ``/ping`` view for ``--ping-duration`` seconds (the
   baseline: same server, same middleware, no database);
2. runs respondents for ``--duration`` seconds (or ``--max-submissions``): each
   GETs the respond page (CSRF cookie and token, the compiled specs), randomizes
   every private answer with the Python reference mechanism into the JSON
   report the browser would send, and POSTs the form as the page's script does
   (retrying with the same idempotency key after a connection error or a 5xx,
   as the page does).

Then it waits for the queue to drain and checks (``load_checks``) that
accepted = stored submissions = reports per private question = tallied n,
that the tallies equal a from-scratch aggregate of the stored reports, and
that no request got a server error.  It prints throughput (per second) and
p50/p99 latency with the ratios to the trivial view.  Per-address rate limits
are switched off for the run (all the load comes from one address).  Every
process it starts is stopped on exit, on failure and on Ctrl-C.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness import (  # noqa: E402 (after the path is set)
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    Stack,
    create_survey,
    ensure_database,
    percentile,
    respond_path,
    setup_django,
)
from benchmarks.http_client import Response, get, request  # noqa: E402
from benchmarks.load_checks import Consistency, checked, wait_for_drain  # noqa: E402
from benchmarks.loops import Phase, run_phase  # noqa: E402
from benchmarks.respondent import Mechanisms, RespondPage, form_body  # noqa: E402

POST_ATTEMPTS = 3


# --- measuring ------------------------------------------------------------------------
@dataclass
class Recorder:
    """Latencies and outcomes, shared by the client threads."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    failed: Counter = field(default_factory=Counter)  # connection errors by label
    accepted: set[str] = field(default_factory=set)  # acknowledged keys
    created: int = 0
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, label: str, response: Response) -> None:
        with self.lock:
            self.latencies[label].append(response.seconds)
            self.statuses[label][response.status] += 1

    def record_time(self, label: str, seconds: float) -> None:
        with self.lock:
            self.latencies[label].append(seconds)

    def fail(self, label: str, error: BaseException) -> None:
        with self.lock:
            self.failed[label] += 1
            if len(self.problems) < 20:
                self.problems.append(f"{label}: {type(error).__name__}: {error}")

    def note(self, problem: str) -> None:
        with self.lock:
            if len(self.problems) < 20:
                self.problems.append(problem)

    def server_errors(self) -> int:
        return sum(
            count
            for statuses in self.statuses.values()
            for status, count in statuses.items()
            if status >= 500
        )

    def unexpected(self) -> int:
        """4xx answers and other non-success statuses."""
        return sum(
            count
            for statuses in self.statuses.values()
            for status, count in statuses.items()
            if not 200 <= status < 300 and status < 500
        )


class Client:
    """The load: trivial GETs, and respondents who fetch the form and submit it."""

    def __init__(self, port: int, respond_path: str, seed: int = 20261122):
        self.port = port
        self.respond_path = respond_path
        self.recorder = Recorder()
        self.mechanisms = Mechanisms()
        self._seeds = np.random.SeedSequence(seed)
        self._rngs: dict[int, np.random.Generator] = {}
        self._rng_lock = threading.Lock()

    def rng(self, index: int) -> np.random.Generator:
        with self._rng_lock:
            if index not in self._rngs:
                (child,) = self._seeds.spawn(1)
                self._rngs[index] = np.random.default_rng(child)
            return self._rngs[index]

    def ping(self, index: int) -> bool:
        try:
            response = get(self.port, "/ping")
        except (OSError, http.client.HTTPException) as error:
            self.recorder.fail("ping", error)
            return False
        self.recorder.record("ping", response)
        return response.status == 200 and response.body == b"ok"

    def form(self, index: int) -> RespondPage | None:
        """GET the respond page; None (recorded) if it did not answer 200."""
        try:
            response = get(self.port, self.respond_path)
        except (OSError, http.client.HTTPException) as error:
            self.recorder.fail("form", error)
            return None
        self.recorder.record("form", response)
        if response.status != 200:
            self.recorder.note(f"form: HTTP {response.status}")
            return None
        page = RespondPage(response.body.decode())
        page.csrf_cookie = response.cookie("csrftoken") or ""
        return page

    def respondent(self, index: int) -> bool:
        """One respondent: the form, then the POST (retried as the page does)."""
        started = time.perf_counter()
        page = self.form(index)
        if page is None:
            return False
        key, body = form_body(page, self.mechanisms, self.rng(index))
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
            "Cookie": f"csrftoken={page.csrf_cookie}",
        }
        for _ in range(POST_ATTEMPTS):
            try:
                response = request(
                    self.port, "POST", self.respond_path, body=body, headers=headers
                )
            except (OSError, http.client.HTTPException) as error:
                self.recorder.fail("submit", error)
                continue  # the page resends exactly the same body
            self.recorder.record("submit", response)
            if response.status >= 500:
                continue
            if response.status in {200, 201}:
                data = json.loads(response.body)
                if data.get("receipt_url"):
                    with self.recorder.lock:
                        self.recorder.accepted.add(key)
                        self.recorder.created += response.status == 201
                    self.recorder.record_time(
                        "respondent", time.perf_counter() - started
                    )
                    return True
            self.recorder.note(
                f"submit: HTTP {response.status} {response.body[:200]!r}"
            )
            return False
        return False


# --- the whole run --------------------------------------------------------------------
@dataclass(frozen=True)
class Figures:
    """Throughput and latency of one kind of request."""

    label: str
    count: int
    per_second: float
    p50: float  # seconds
    p99: float


@dataclass(frozen=True)
class LoadResult:
    """Every figure of one run, and what was checked after it."""

    concurrency: int
    web_workers: int
    celery_workers: int
    trivial: Figures
    form: Figures
    submit: Figures
    respondents: Figures  # whole respondents (GET + POST) per second
    ping_cpu: float
    submit_cpu: float
    consistency: Consistency
    notes: list[str] = field(default_factory=list)  # first problems seen by clients

    @property
    def throughput_ratio(self) -> float:
        return self.respondents.per_second / self.trivial.per_second

    @property
    def request_ratio(self) -> float:
        requests = self.form.per_second + self.submit.per_second
        return requests / self.trivial.per_second

    @property
    def p50_ratio(self) -> float:
        return self.submit.p50 / self.trivial.p50

    @property
    def p99_ratio(self) -> float:
        return self.submit.p99 / self.trivial.p99


def figures(
    label: str, latencies: list[float], completed: int, phase: Phase
) -> Figures:
    """Rate over the phase's wall time, and latency percentiles."""
    return Figures(
        label,
        completed,
        completed / phase.seconds if phase.seconds else math.nan,
        percentile(latencies, 50),
        percentile(latencies, 99),
    )


def run_load(
    *,
    port: int,
    survey_id: int,
    path: str,
    broker_url: str,
    concurrency: int,
    duration: float,
    ping_duration: float | None = None,
    max_submissions: int | None = None,
    max_pings: int | None = None,
    drain_timeout: float = 120,
    web_workers: int = 0,
    celery_workers: int = 0,
) -> LoadResult:
    """Warm up, time the trivial view, then respondents; drain and check."""
    client = Client(port, path)
    warm = Client(port, path)  # warm-up figures are not kept
    warmed = run_phase(
        concurrency=concurrency,
        duration=10,
        max_count=2 * concurrency,
        action=lambda i: bool(warm.ping(i) and warm.form(i)),
    )
    pinged = run_phase(
        concurrency=concurrency,
        duration=duration if ping_duration is None else ping_duration,
        max_count=max_pings,
        action=client.ping,
    )
    answered = run_phase(
        concurrency=concurrency,
        duration=duration,
        max_count=max_submissions,
        action=client.respondent,
    )
    drained = wait_for_drain(survey_id, broker_url, drain_timeout)
    recorder = client.recorder
    consistency = checked(
        survey_id,
        broker_url,
        [recorder, warm.recorder],
        drained_after=drained,
        client_crashes=sum(len(phase.crashes) for phase in (warmed, pinged, answered)),
    )
    latencies = recorder.latencies
    return LoadResult(
        concurrency=concurrency,
        web_workers=web_workers,
        celery_workers=celery_workers,
        trivial=figures(
            "GET /ping (trivial)", latencies["ping"], pinged.completed, pinged
        ),
        form=figures(
            "GET respond page",
            latencies["form"],
            len(latencies["form"]),
            answered,
        ),
        submit=figures(
            "POST submission",
            latencies["submit"],
            len(latencies["submit"]),
            answered,
        ),
        respondents=figures(
            "respondents (GET+POST)",
            latencies["respondent"],
            answered.completed,
            answered,
        ),
        ping_cpu=pinged.client_cpu,
        submit_cpu=answered.client_cpu,
        consistency=consistency,
        notes=[
            *recorder.problems,
            *warm.recorder.problems,
            *(c for phase in (warmed, pinged, answered) for c in phase.crashes),
        ],
    )


def format_result(result: LoadResult, problems: list[str] | None = None) -> str:
    """The table of figures and ratios, and the consistency check."""
    c = result.consistency
    lines = [
        f"{result.concurrency} concurrent clients; gunicorn workers: "
        f"{result.web_workers}; Celery workers: {result.celery_workers}; "
        "rate limits off",
        f"{'':<26}{'count':>8}{'per s':>10}{'p50 ms':>10}{'p99 ms':>10}",
    ]
    for row in (result.trivial, result.form, result.submit, result.respondents):
        lines.append(
            f"{row.label:<26}{row.count:>8}{row.per_second:>10.1f}"
            f"{row.p50 * 1e3:>10.1f}{row.p99 * 1e3:>10.1f}"
        )
    lines += [
        "ratios to the trivial view, same run:",
        f"  respondents/s ÷ trivial requests/s  {result.throughput_ratio:8.3f}",
        f"  requests/s (GET+POST) ÷ trivial     {result.request_ratio:8.3f}",
        f"  submission p50 ÷ trivial p50        {result.p50_ratio:8.1f}",
        f"  submission p99 ÷ trivial p99        {result.p99_ratio:8.1f}",
        f"load generator CPU (cores): trivial {result.ping_cpu:.2f}, "
        f"respondents {result.submit_cpu:.2f}",
        "after the load:",
        f"  accepted {c.accepted} = stored {c.stored} = reports per question "
        f"{sorted(set(c.reports.values()))} = tallied "
        f"{sorted(set(c.tallied.values()))}",
        f"  tallies equal a recount: {'yes' if c.recount_equal else 'NO'}; "
        + (
            f"current {c.drained_after:.1f} s after the last submission"
            if c.drained_after is not None
            else "NOT current at the timeout"
        )
        + f"; tasks left queued: {c.queued}",
        f"  server errors (5xx): {c.server_errors}; failed connections: "
        f"{c.failed_requests}; other non-2xx: {c.unexpected}",
    ]
    for problem in problems or []:
        lines.append(f"  problem: {problem}")
    for note in result.notes[:5]:
        lines.append(f"  client saw: {note}")
    return "\n".join(lines)


# --- the command ----------------------------------------------------------------------
def _raise_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--duration", type=float, default=60, help="seconds")
    parser.add_argument("--ping-duration", type=float, help="default: --duration")
    parser.add_argument("--max-submissions", type=int)
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--celery-workers", type=int, default=2)
    parser.add_argument("--worker-concurrency", type=int, default=1)
    parser.add_argument("--drain-timeout", type=float, default=180)
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _raise_on_sigterm)

    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    broker_url = os.environ.get("CELERY_BROKER_URL") or DEFAULT_REDIS_URL
    cache_url = os.environ.get("CACHE_URL") or broker_url
    if ensure_database(database_url):
        print(f"created database {urlsplit(database_url).path.lstrip('/')}")
    setup_django(database_url)
    survey = create_survey()
    log_dir = Path(tempfile.mkdtemp(prefix="deniable-load-"))
    failed = True
    try:
        with Stack(
            database_url=database_url,
            broker_url=broker_url,
            cache_url=cache_url,
            web_workers=args.web_workers,
            celery_workers=args.celery_workers,
            worker_concurrency=args.worker_concurrency,
            log_dir=log_dir,
        ) as stack:
            result = run_load(
                port=stack.port,
                survey_id=survey.pk,
                path=respond_path(survey),
                broker_url=broker_url,
                concurrency=args.concurrency,
                duration=args.duration,
                ping_duration=args.ping_duration,
                max_submissions=args.max_submissions,
                drain_timeout=args.drain_timeout,
                web_workers=args.web_workers,
                celery_workers=args.celery_workers,
            )
        problems = result.consistency.problems()
        print(format_result(result, problems))
        failed = bool(problems)
    except KeyboardInterrupt:
        print("interrupted; every process it started is stopped", file=sys.stderr)
        return 130
    finally:
        if failed or args.keep_logs:
            print(f"server logs kept in {log_dir}", file=sys.stderr)
        else:
            shutil.rmtree(log_dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
