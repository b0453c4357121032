"""Read latency of the researcher's pages against stored reports, as ratios.

Usage::

    python benchmarks/reads.py [--sizes 10000,1000000] [--repeat 7] [--runs 3]

Starts a throwaway PostgreSQL cluster of its own (removed at the end) unless
``DATABASE_URL`` names a scratch database.  For each size it bulk-loads that
many stored reports (COPY, randomized by the Python reference) to a survey
with one 8-option question (generalized randomized response, ε = 1), and once
10^4 reports to a survey with the heaviest number question the builder
accepts (201 levels at ε = 0.0201; 1,001 levels are refused);
the tallies are brought up to date (not timed).  Then, through Django's test
client in this process (tasks in-process, as with no broker), it times the
median of ``--repeat`` requests after one warm-up request each of:

* the trivial views, the baselines: ``/ping`` (the same middleware, no work of
  its own) signed in, which includes loading the session and the user, the
  floor of every signed-in researcher's read, and the baseline of the pages
  and exports; ``/bench/api-ping`` (``benchmarks/baseline_site.py``: the API's
  bearer-token check, which reads the token and its user, and ``{}``), the
  baseline of the API's read; and ``/ping`` anonymous, printed for reference
  (a second table gives every read as a multiple of it);
* the dashboard, the live endpoint, the estimate exports (CSV, JSON), the API's
  survey resource, and the start of a raw-report export (the time to its first
  streamed chunk; the whole export grows with n by nature).

With ``--shared-cache`` the in-process reads use a Redis server of the
script's own as the shared cache (``CACHE_URL``), as deployed: sessions and
rendered results fragments are then read from it.

With ``--http`` the same reads are then made over HTTP against the compose
``web`` command (gunicorn, ``gunicorn.conf.py``, ``--web-workers`` workers) on
127.0.0.1, with a Redis of its own as broker and shared cache (as deployed),
one request per new connection, ``--http-requests`` times each, signed in with
a session cookie: it prints p50 and p99 latency as ratios to ``/ping`` served
by the same gunicorn.  The snapshots are computed before it starts.  Over HTTP
it also times the start of a raw-report export job: the POST that records the
job and queues it for a worker (no worker runs, so each request measures only
the queuing; the job is removed between requests, untimed, so that none is
answered by reusing an earlier one).

``--queries`` prints how many database queries each read makes, per size: the
reads are constant in n when these do not grow.  ``--clock cpu`` times the
in-process reads by this process's CPU time instead of the wall clock: steady
on a busy machine, but without the time PostgreSQL and Redis spend (the HTTP
run's CPU table counts theirs).

Run it on two checkouts to compare code before and after a change: the script
uses only URLs and the authoring and collection services.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The site plus the benchmarks' trivial views (``/bench/api-ping``).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.baseline_settings")
for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
    os.environ.pop(name, None)  # in-process tasks, a per-process cache
os.environ["RATE_LIMITS_ENABLED"] = "false"

from benchmarks.bulk import store_reports  # noqa: E402 (after the path is set)
from benchmarks.harness import one_question_survey  # noqa: E402
from benchmarks.process_cpu import cpu_seconds  # noqa: E402

# The in-process clock: wall time (the default) or, with ``--clock cpu``, this
# process's CPU time, which other work on a busy machine does not inflate (it
# leaves out the time PostgreSQL and Redis spend, counted over HTTP instead).
CLOCK = time.perf_counter


def median_seconds(get, repeat: int) -> float:
    get()  # warm-up (the first reader may compute what later ones read)
    times = []
    for _ in range(repeat):
        started = CLOCK()
        get()
        times.append(CLOCK() - started)
    return statistics.median(times)


def endpoints(client, survey, api_secret: str) -> dict:
    from django.urls import reverse

    def page(name: str):
        url = reverse(name, args=[survey.pk])
        return lambda: _ok(client.get(url))

    def first_chunk():
        response = client.get(reverse("analysis:export_reports_csv", args=[survey.pk]))
        next(iter(response.streaming_content))
        response.close()

    api_url = reverse("analysis:api_survey", kwargs={"pk": survey.pk})
    return {
        "dashboard": page("analysis:dashboard"),
        "live": page("analysis:dashboard_live"),
        "estimates.csv": page("analysis:export_estimates_csv"),
        "estimates.json": page("analysis:export_estimates_json"),
        "API survey": lambda: _ok(
            client.get(api_url, HTTP_AUTHORIZATION=f"Bearer {api_secret}")
        ),
        "reports.csv start": first_chunk,
    }


def _ok(response) -> None:
    if response.status_code != 200:
        raise SystemExit(f"{response.status_code} from {response.request['PATH_INFO']}")


def run(
    sizes: list[int],
    repeat: int,
    runs: int = 1,
    http_requests: int = 0,
    web_workers: int = 2,
    queries: bool = False,
) -> None:
    import django
    from django.core.management import call_command

    django.setup()
    from django.conf import settings

    call_command("migrate", verbosity=0)
    from django.test import Client

    from surveys.accounts.models import User
    from surveys.analysis.tallies import services, snapshots
    from surveys.api_tokens.services import api_token_create
    from surveys.authoring.mechanisms import PrivacyConfig

    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}")
    secret = api_token_create(user=owner, name="bench").secret
    client = Client(SERVER_NAME="localhost")  # a host the site allows
    rng = np.random.default_rng(20261123)
    cases = []
    grr = PrivacyConfig(
        kind="single_choice",
        options=tuple("ABCDEFGH"),
        epsilon=1.0,
        mechanism="grr",
    )
    for size in sizes:
        survey = one_question_survey(owner, f"8 options, {size:,} reports", grr)
        cases.append((f"8 options, n = {size:,}", survey, size))
    numeric = PrivacyConfig(
        kind="numeric",
        low=Decimal(0),
        high=Decimal(200),
        step=Decimal(1),
        epsilon=0.0201,
        mechanism="geometric",
    )
    survey = one_question_survey(owner, "201 levels at ε = 0.0201", numeric)
    cases.append(("201 levels, ε = 0.0201, n = 10,000", survey, 10_000))
    for _, survey, size in cases:
        store_reports(survey, size, rng)
        services.tallies_refresh(survey_id=survey.pk)  # up to date, not timed
    from django.db import connection

    with connection.cursor() as cursor:
        # Planner statistics for the rows just copied in, as autovacuum would
        # gather them on a server (without them the first snapshot of 10^6
        # reports took minutes on a busy machine).
        cursor.execute("ANALYZE")

    # Signed in only now: loading 10^7 reports takes longer than a
    # researcher's idle timeout (SESSION_IDLE_MINUTES), after which every
    # read would answer a redirect to the sign-in page.
    client.force_login(owner)
    ping = lambda: _ok(client.get("/ping"))  # noqa: E731
    anonymous = Client(SERVER_NAME="localhost")
    anonymous_ping = lambda: _ok(anonymous.get("/ping"))  # noqa: E731
    api_ping = lambda: _ok(  # noqa: E731
        client.get("/bench/api-ping", HTTP_AUTHORIZATION=f"Bearer {secret}")
    )
    names = list(endpoints(client, cases[0][1], secret))
    for number in range(1, runs + 1):
        print(f"\nrun {number} of {runs}")
        print(
            f"{'case':>36} | {'ping ms':>8} | {'API ping ms':>11} | {'anon. ms':>8} | "
            + " | ".join(f"{n:>17}" for n in names)
        )
        print("-" * (76 + 20 * len(names)))
        against_anonymous = []
        for label, survey, _ in cases:
            base = median_seconds(ping, repeat)
            api_base = median_seconds(api_ping, repeat)
            anonymous_base = median_seconds(anonymous_ping, repeat)
            cells, plain = [], []
            for name, get in endpoints(client, survey, secret).items():
                seconds = median_seconds(get, repeat)
                fair = api_base if name == "API survey" else base
                cells.append(f"{seconds * 1000:8.1f} ms {seconds / fair:5.1f}×")
                plain.append(f"{seconds / anonymous_base:16.1f}×")
            print(
                f"{label:>36} | {base * 1000:8.2f} | {api_base * 1000:11.2f} | "
                f"{anonymous_base * 1000:8.2f} | " + " | ".join(cells)
            )
            against_anonymous.append((label, plain))
        print(f"\nthe same reads as multiples of the anonymous /ping (run {number})")
        for label, plain in against_anonymous:
            print(f"{label:>36} | " + " | ".join(plain))
    print(
        "\nEach cell: median latency, and its ratio to the signed-in /ping (the API"
        " survey: to the token-checked /bench/api-ping) measured in the same run."
    )
    if queries:
        print_query_counts(cases, client, secret)
    if http_requests:
        for _, survey, _ in cases:
            snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        over_http(cases, client, secret, session, http_requests, web_workers)


def print_query_counts(cases, client, secret: str) -> None:
    """Database queries of each read (after a warm-up), per case."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    names = list(endpoints(client, cases[0][1], secret))
    print("\ndatabase queries per read (signed in, after one warm-up read)")
    print(f"{'case':>36} | " + " | ".join(f"{n:>17}" for n in names))
    for label, survey, _ in cases:
        cells = []
        for get in endpoints(client, survey, secret).values():
            get()
            with CaptureQueriesContext(connection) as captured:
                get()
            cells.append(f"{len(captured.captured_queries):>17}")
        print(f"{label:>36} | " + " | ".join(cells))


def over_http(
    cases, client, secret: str, session: str, count: int, web_workers: int
) -> None:
    """p50/p99 of the same reads through gunicorn, as ratios to its /ping."""
    from django.conf import settings

    from benchmarks.harness import Process, Stack, free_port, percentile, request

    log_dir = Path(tempfile.mkdtemp(prefix="deniable-reads-"))
    port = free_port()
    redis = Process(
        "redis",
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        dict(os.environ),
        log_dir / "redis.log",
    )
    redis_url = f"redis://127.0.0.1:{port}/0"
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}"
    work_rows: list[tuple[str, dict[str, float]]] = []
    try:
        _wait_for_redis(redis_url)
        with Stack(
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
        ) as stack:
            work: dict[str, float] = {}  # CPU seconds a request, by label

            def timed(
                path: str, headers: dict[str, str], label: str = ""
            ) -> list[float]:
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
            print(
                f"{'case':>36} | {'ping p50/p99 ms':>16} | "
                + " | ".join(
                    f"{n + ' p50/p99':>22}"
                    for n in [
                        "/ping signed in",
                        "API ping",
                        *http_paths(cases[0][1]),
                        "export job start",
                    ]
                )
            )
            for label, survey, _ in cases:
                base = timed("/ping", {})
                base50, base99 = percentile(base, 50), percentile(base, 99)
                # The floor of every researcher's read: the same trivial view
                # with the session cookie (session and user loaded, sign-in
                # checked), as a ratio to the anonymous one.
                floor = timed("/ping", {"Cookie": cookie}, "/ping signed in")
                p50, p99 = percentile(floor, 50), percentile(floor, 99)
                cells = [f"{p50 / base50:8.1f}× {p99 / base99:8.1f}×"]
                bearer = {"Authorization": f"Bearer {secret}"}
                api_floor = timed("/bench/api-ping", bearer, "API ping")
                p50, p99 = percentile(api_floor, 50), percentile(api_floor, 99)
                cells.append(f"{p50 / base50:8.1f}× {p99 / base99:8.1f}×")
                for name, path in http_paths(survey).items():
                    headers = {"Cookie": cookie}
                    if name == "API survey":
                        headers = bearer
                    times = timed(path, headers, name)
                    p50, p99 = percentile(times, 50), percentile(times, 99)
                    cells.append(f"{p50 / base50:8.1f}× {p99 / base99:8.1f}×")
                times = export_job_starts(stack.port, survey, cookie, count)
                p50, p99 = percentile(times, 50), percentile(times, 99)
                cells.append(f"{p50 / base50:8.1f}× {p99 / base99:8.1f}×")
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
    finally:
        redis.stop()


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

    from benchmarks.harness import request
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


def _wait_for_redis(url: str, timeout: float = 15) -> None:
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
    from django.urls import reverse

    return {
        "dashboard": reverse("analysis:dashboard", args=[survey.pk]),
        "live": reverse("analysis:dashboard_live", args=[survey.pk]),
        "estimates.csv": reverse("analysis:export_estimates_csv", args=[survey.pk]),
        "estimates.json": reverse("analysis:export_estimates_json", args=[survey.pk]),
        "API survey": reverse("analysis:api_survey", kwargs={"pk": survey.pk}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--runs", type=int, default=1, help="measure this many times on the same data"
    )
    parser.add_argument(
        "--http",
        type=int,
        default=0,
        metavar="N",
        help="then N requests of each read over HTTP to gunicorn (0: none)",
    )
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument(
        "--queries", action="store_true", help="print database queries per read"
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="in process, time wall clock or this process's CPU time (steady on"
        " a busy machine; leaves out the database's and Redis's own time)",
    )
    parser.add_argument(
        "--shared-cache",
        action="store_true",
        help="in process too, use a Redis of its own as the shared cache (as"
        " deployed: sessions and results fragments read from it)",
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        if args.shared_cache:
            stack.enter_context(_own_shared_cache())
        _measure(args)


@contextlib.contextmanager
def _own_shared_cache():
    """A Redis server of its own as ``CACHE_URL`` for the in-process reads."""
    from benchmarks.harness import Process, free_port

    port = free_port()
    log_dir = Path(tempfile.mkdtemp(prefix="deniable-reads-cache-"))
    redis = Process(
        "redis",
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        dict(os.environ),
        log_dir / "redis.log",
    )
    try:
        url = f"redis://127.0.0.1:{port}/0"
        _wait_for_redis(url)
        os.environ["CACHE_URL"] = url
        yield
    finally:
        os.environ.pop("CACHE_URL", None)
        redis.stop()


def _measure(args: argparse.Namespace) -> None:
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"in-process clock: {args.clock}")
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        run(sizes, args.repeat, args.runs, args.http, args.web_workers, args.queries)
        return
    from tests.own_servers import OwnPostgres

    cluster = OwnPostgres.on_a_free_port()
    try:
        os.environ["DATABASE_URL"] = cluster.create_database("deniable_reads")
        run(sizes, args.repeat, args.runs, args.http, args.web_workers, args.queries)
    finally:
        cluster.destroy()


if __name__ == "__main__":
    main()
