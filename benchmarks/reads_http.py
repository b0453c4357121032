"""``reads.py`` over HTTP: the same reads through gunicorn, as ratios to its
``/ping``, with the servers' CPU time a request; and a Redis of the script's own.

:func:`over_http` starts the compose ``web`` command (``harness.Stack``) with
a Redis server of its own (:func:`own_redis`) as broker and shared cache,
makes each read ``count`` times on a new connection, signed in with the
session cookie, and prints p50 and p99 as ratios to the same gunicorn's
``/ping`` and the CPU time the servers (gunicorn, PostgreSQL's backends,
Redis) spent per request, read from ``/proc``.  :func:`own_shared_cache`
gives the in-process reads the same kind of Redis as their shared cache.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from benchmarks.harness import Process, Stack, free_port, percentile
from benchmarks.http_client import request
from benchmarks.process_cpu import cpu_seconds


@contextlib.contextmanager
def own_redis(log_dir: Path) -> Iterator[tuple[Process, str]]:
    """A throwaway ``redis-server`` on a free port (no persistence), and its
    URL; stopped by its own PID when the block exits."""
    port = free_port()
    redis = Process(
        "redis",
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        dict(os.environ),
        log_dir / "redis.log",
    )
    try:
        url = f"redis://127.0.0.1:{port}/0"
        wait_for_redis(url)
        yield redis, url
    finally:
        redis.stop()


@contextlib.contextmanager
def own_shared_cache() -> Iterator[None]:
    """A Redis server of its own as ``CACHE_URL`` for the in-process reads."""
    log_dir = Path(tempfile.mkdtemp(prefix="deniable-reads-cache-"))
    with own_redis(log_dir) as (_, url):
        os.environ["CACHE_URL"] = url
        try:
            yield
        finally:
            os.environ.pop("CACHE_URL", None)


def _ratios(times: list[float], base50: float, base99: float) -> str:
    """p50 and p99 of ``times`` as ratios to the baseline's p50 and p99."""
    p50, p99 = percentile(times, 50), percentile(times, 99)
    return f"{p50 / base50:8.1f}× {p99 / base99:8.1f}×"


def _case_cells(
    timed: Callable[..., list[float]],
    port: int,
    survey,
    secret: str,
    cookie: str,
    count: int,
) -> tuple[float, float, list[str]]:
    """One case's row: the anonymous ``/ping`` p50 and p99 and every read's
    ratios to them."""
    base = timed("/ping", {})
    base50, base99 = percentile(base, 50), percentile(base, 99)
    # The floor of every researcher's read: the same trivial view with the
    # session cookie (session and user loaded, sign-in checked), as a ratio
    # to the anonymous one.
    cells = [
        _ratios(timed("/ping", {"Cookie": cookie}, "/ping signed in"), base50, base99)
    ]
    bearer = {"Authorization": f"Bearer {secret}"}
    cells.append(_ratios(timed("/bench/api-ping", bearer, "API ping"), base50, base99))
    for name, path in http_paths(survey).items():
        headers = bearer if name == "API survey" else {"Cookie": cookie}
        cells.append(_ratios(timed(path, headers, name), base50, base99))
    starts = export_job_starts(port, survey, cookie, count)
    cells.append(_ratios(starts, base50, base99))
    return base50, base99, cells


def over_http(
    cases, client, secret: str, session: str, count: int, web_workers: int
) -> None:
    """p50/p99 of the same reads through gunicorn, as ratios to its /ping."""
    from django.conf import settings

    log_dir = Path(tempfile.mkdtemp(prefix="deniable-reads-"))
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}"
    work_rows: list[tuple[str, dict[str, float]]] = []
    with (
        own_redis(log_dir) as (redis, redis_url),
        Stack(
            database_url=os.environ["DATABASE_URL"],
            broker_url=redis_url,
            web_workers=web_workers,
            celery_workers=0,
            log_dir=log_dir,
            # One database connection per worker for the whole run, so the CPU
            # time of its backend is all counted (the default reconnects every
            # 60 s, and a closed backend's CPU time can no longer be read).
            env={"DATABASE_CONN_MAX_AGE": "3600"},
            web_settings="benchmarks.baseline_settings",  # with /bench/api-ping
        ) as stack,
    ):
        work: dict[str, float] = {}  # CPU seconds a request, by label

        def timed(path: str, headers: dict[str, str], label: str = "") -> list[float]:
            request(stack.port, "GET", path, headers=headers)  # warm-up
            request(stack.port, "GET", path, headers=headers)  # both workers
            pids = server_pids(stack.processes[0].process.pid, redis.process.pid)
            before = cpu_seconds(pids)
            times = []
            for _ in range(count):
                answer = request(stack.port, "GET", path, headers=headers)
                if answer.status != 200:
                    raise SystemExit(f"{answer.status} from {path} over HTTP")
                times.append(answer.seconds)
            work[label or path] = (cpu_seconds(pids) - before) / count
            return times

        print(f"\nover HTTP: gunicorn, {web_workers} workers, {count} requests")
        columns = ["/ping signed in", "API ping", *http_paths(cases[0][1])]
        print(
            f"{'case':>36} | {'ping p50/p99 ms':>16} | "
            + " | ".join(
                f"{n + ' p50/p99':>22}" for n in [*columns, "export job start"]
            )
        )
        for label, survey, _ in cases:
            base50, base99, cells = _case_cells(
                timed, stack.port, survey, secret, cookie, count
            )
            print(
                f"{label:>36} | {base50 * 1000:7.2f}/{base99 * 1000:<7.2f} | "
                + " | ".join(f"{c:>22}" for c in cells)
            )
            work_rows.append((label, dict(work)))
    print(
        "\nEach cell: p50 and p99 latency as ratios to the same gunicorn's /ping"
        " p50 and p99 (whole responses, one new connection each)."
    )
    print_work(work_rows)


def server_pids(web_group: int, redis_pid: int) -> list[int]:
    """The processes that serve a request: gunicorn's (its process group),
    the database's backends for this database, and the Redis server."""
    from django.db import connection

    web = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == web_group:  # field 5: the process group
                    web.append(int(entry.name))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        backends = [row[0] for row in cursor.fetchall()]
    return [*web, *backends, redis_pid]


def print_work(rows: list[tuple[str, dict[str, float]]]) -> None:
    """CPU time a request of each read takes in the servers, as ratios."""
    if not rows:
        return
    names = [name for name in rows[0][1] if name != "/ping"]
    print(
        "\nCPU time a request takes in the servers (gunicorn, PostgreSQL's"
        " backends, Redis), as ratios to /ping anonymous | the fair trivial view"
        " (signed-in /ping; for the API reads, /bench/api-ping)"
    )
    print(f"{'case':>36} | {'ping ms':>8} | " + " | ".join(f"{n:>17}" for n in names))
    for label, work in rows:
        base = work["/ping"]
        cells = []
        for n in names:
            floor = work["API ping" if n.startswith("API") else "/ping signed in"]
            cells.append(
                f"{work[n] / base:6.1f}× | {work[n] / floor:4.1f}×"
                if base > 0 and floor > 0
                else "—"
            )
        print(
            f"{label:>36} | {base * 1000:8.2f} | "
            + " | ".join(f"{c:>17}" for c in cells)
        )
    print(
        "CPU time is read from /proc before and after the requests (1/100 s"
        " ticks: use --http 200 or more); it does not wait on other work, so"
        " it stays steady on a busy machine where latencies do not."
    )


def export_job_starts(port: int, survey, cookie: str, count: int) -> list[float]:
    """Seconds of each POST that records a raw-report export job and queues it."""
    import secrets

    from django.conf import settings
    from django.urls import reverse

    from benchmarks.http_client import request
    from surveys.analysis.models import AnalysisJob

    csrf = secrets.token_hex(16)  # an unmasked 32-character CSRF secret
    headers = {
        "Cookie": f"{cookie}; {settings.CSRF_COOKIE_NAME}={csrf}",
        "X-CSRFToken": csrf,
        "Content-Type": "application/x-www-form-urlencoded",
    }
    path = reverse("analysis:export_job_request", args=[survey.pk])
    jobs = AnalysisJob.objects.filter(survey=survey, kind=AnalysisJob.Kind.EXPORT)
    times = []
    for number in range(count + 1):
        jobs.delete()  # untimed: every POST records and queues a new job
        answer = request(
            port, "POST", path, body=b"export=reports_csv", headers=headers
        )
        if answer.status != 302:
            raise SystemExit(f"{answer.status} from POST {path} over HTTP")
        if number:  # the first is a warm-up
            times.append(answer.seconds)
    jobs.delete()
    return times


def wait_for_redis(url: str, timeout: float = 15) -> None:
    """Until the Redis server at ``url`` answers a PING."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.exceptions.ConnectionError):
            if client.ping():
                return
        time.sleep(0.05)
    raise SystemExit("redis-server did not start")


def http_paths(survey) -> dict[str, str]:
    """The reads made over HTTP, by name: their paths for ``survey``."""
    from django.urls import reverse

    return {
        "dashboard": reverse("analysis:dashboard", args=[survey.pk]),
        "live": reverse("analysis:dashboard_live", args=[survey.pk]),
        "estimates.csv": reverse("analysis:export_estimates_csv", args=[survey.pk]),
        "estimates.json": reverse("analysis:export_estimates_json", args=[survey.pk]),
        "API survey": reverse("analysis:api_survey", kwargs={"pk": survey.pk}),
    }
