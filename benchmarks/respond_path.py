"""The respondent path's latency against trivial views, and its p99 at a fixed rate.

Usage::

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/deniable_bench \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 \\
        python benchmarks/respond_path.py [--runs 3] [--serial 300] \\
            [--capacity-concurrency 8] [--capacity-seconds 20] \\
            [--rate-seconds 30] [--web-workers 3] [--celery-workers 2]

It starts the same stack as ``load.py`` (gunicorn with ``gunicorn.conf.py``,
Celery workers, PostgreSQL and Redis on 127.0.0.1), with the settings module
``benchmarks.baseline_settings``: the site plus a trivial view that inserts
one row in one transaction (``POST /bench/insert``).  It publishes the demo's
survey (one question of every kind) and, ``--runs`` times on the same stack:

1. **serial** latency, one client, one request at a time, ``--serial``
   rounds of ``GET /ping`` (the trivial view), ``POST /bench/insert`` (the
   trivial view with one row inserted in one transaction), and a respondent:
   ``GET`` the respond page, randomize every private answer with the Python
   reference mechanism, ``POST`` it as the page's script does.  Ratios:
   respond GET p50 ÷ ``/ping`` p50 and respond POST p50 ÷
   ``/bench/insert`` p50 (information only: the budgets are
   ``open_loop.py``'s);
2. **capacity**: ``--capacity-concurrency`` clients run respondents back to
   back for ``--capacity-seconds``; respondents completed per second;
3. **fixed rate**: respondents arrive at half that capacity, evenly spaced
   (an open loop: a new respondent starts on schedule whether or not the
   earlier ones finished), for ``--rate-seconds``; each request's time counts
   from its scheduled start, so waiting for a free client counts too.  p50 and
   p99 of the respond GET and POST;
4. **CPU time**, less noisy than wall clock on a shared machine: ``--cpu``
   rounds of each request in blocks of its own (``/ping``, the trivial
   insert, the respond GET alone, whole respondents), with the CPU seconds
   (user + system, ``/proc``) the gunicorn processes and their PostgreSQL
   backends used over each block, divided by the rounds; the POST's is the
   respondents' minus the GET's.  Ratios: GET ÷ ``/ping`` and POST ÷
   ``/bench/insert`` in CPU time.  Work done after a response is sent (in the
   same processes) is counted with the block that caused it.

Every request uses a new connection (gunicorn's sync workers close them).
After the runs it waits for the Celery queue to drain and checks, as
``load.py`` does, that accepted = stored = reports per question = tallied n,
that the tallies equal a recount, and that nothing got a server error.  Rate
limits are off (all the load comes from one address).  Every process it
starts is stopped on exit.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import math
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import harness, http_client, load, load_checks, loops  # noqa: E402
from benchmarks.process_cpu import cpu_seconds  # noqa: E402

WEB_SETTINGS = "benchmarks.baseline_settings"
INSERT_PATH = "/bench/insert"


class LastRecorder(load.Recorder):
    """``load.Recorder`` that also keeps, per thread, each label's last time."""

    def __init__(self) -> None:
        super().__init__()
        self.last = threading.local()

    def record(self, label: str, response: http_client.Response) -> None:
        super().record(label, response)
        setattr(self.last, label, response.seconds)


class PathClient(load.Client):
    """``load.Client`` plus the trivial insert; the last times per thread."""

    def __init__(self, port: int, respond_path: str) -> None:
        super().__init__(port, respond_path)
        self.recorder: LastRecorder = LastRecorder()

    def timed_respondent(self, index: int) -> tuple[float | None, float | None]:
        """One respondent; the seconds of its GET and of its last POST (None:
        not completed)."""
        self.recorder.last.form = self.recorder.last.submit = None
        done = self.respondent(index)
        last = self.recorder.last
        return last.form, (last.submit if done else None)

    def insert(self, index: int) -> bool:
        """POST the trivial one-row insert."""
        try:
            response = http_client.request(
                self.port,
                "POST",
                INSERT_PATH,
                body=b"x" * 64,
                headers={"Content-Type": "application/octet-stream"},
            )
        except (OSError, http.client.HTTPException) as error:
            self.recorder.fail("insert", error)
            return False
        self.recorder.record("insert", response)
        return response.status == 200 and response.body == b"ok"


@dataclass(frozen=True)
class RunFigures:
    """One run's figures (milliseconds and ratios)."""

    ping_p50: float
    insert_p50: float
    get_p50: float
    post_p50: float
    capacity: float  # respondents per second
    rate: float  # the fixed arrival rate used, respondents per second
    rate_get_p50: float
    rate_get_p99: float
    rate_post_p50: float
    rate_post_p99: float
    rate_late: int  # respondents that started over 10 ms after their schedule
    cpu: dict[str, float]  # CPU ms a request: ping, insert, form, submit

    @property
    def cpu_get_ratio(self) -> float:
        return self.cpu["form"] / self.cpu["ping"] if self.cpu["ping"] else math.nan

    @property
    def cpu_post_ratio(self) -> float:
        return (
            self.cpu["submit"] / self.cpu["insert"] if self.cpu["insert"] else math.nan
        )

    @property
    def get_ratio(self) -> float:
        return self.get_p50 / self.ping_p50

    @property
    def post_ratio(self) -> float:
        return self.post_p50 / self.insert_p50


def _ms(values: list[float], share: float) -> float:
    return harness.percentile(values, share) * 1e3


def serial(client: PathClient, rounds: int) -> tuple[float, float, float, float]:
    """p50 ms of /ping, the trivial insert, the respond GET and POST, one at
    a time, interleaved round by round (so background load hits all alike)."""
    start = {k: len(client.recorder.latencies[k]) for k in ("ping", "insert")}
    start["form"] = len(client.recorder.latencies["form"])
    start["submit"] = len(client.recorder.latencies["submit"])
    for _ in range(rounds):
        client.ping(0)
        client.insert(0)
        client.respondent(0)
    lat = client.recorder.latencies
    return tuple(  # type: ignore[return-value]
        _ms(lat[k][start[k] :], 50) for k in ("ping", "insert", "form", "submit")
    )


def capacity(client: PathClient, concurrency: int, seconds: float) -> float:
    """Respondents completed per second with ``concurrency`` back-to-back clients."""
    phase = loops.run_phase(
        concurrency=concurrency,
        duration=seconds,
        max_count=None,
        action=client.respondent,
    )
    return phase.completed / phase.seconds


def fixed_rate(
    client: PathClient, rate: float, seconds: float
) -> tuple[float, float, float, float, int]:
    """Respondents started every 1/``rate`` s for ``seconds`` (open loop).

    Returns p50 and p99 ms of the respond GET and POST, each timed from its
    scheduled start (the GET from the respondent's, the POST from when the
    GET finished) so that queueing in the load generator counts, and how
    many respondents started more than 10 ms late.
    """
    gets: list[float] = []
    posts: list[float] = []
    late = 0
    lock = threading.Lock()

    def one(index: int, scheduled: float) -> None:
        nonlocal late
        began = time.perf_counter()
        got, sent = client.timed_respondent(index)
        with lock:
            delay = began - scheduled
            late += delay > 0.010
            if got is not None:
                gets.append(got + delay)
            if sent is not None:
                posts.append(sent)

    count = max(1, int(rate * seconds))
    workers = max(16, math.ceil(rate * 0.5))  # 500 ms of arrivals in flight
    origin = time.perf_counter() + 0.05
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for index in range(count):
            scheduled = origin + index / rate
            pause = scheduled - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            pool.submit(one, index % workers, scheduled)
    return (
        _ms(gets, 50),
        _ms(gets, 99),
        _ms(posts, 50),
        _ms(posts, 99),
        late,
    )


def web_pids(group: int) -> list[int]:
    """The processes of gunicorn's process group (its master's pid)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == group:  # field 5: the process group
                    pids.append(int(entry.name))
    return pids


def _local_ports(pids: list[int]) -> set[int]:
    """Local TCP ports of the sockets the processes hold open."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if len(fields) > 9 and fields[9] in inodes:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def server_pids(group: int) -> list[int]:
    """gunicorn's processes and the PostgreSQL backends serving them (matched
    by their client port), not the Celery workers' backends."""
    from django.db import connection

    web = web_pids(group)
    ports = _local_ports(web)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, client_port FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        backends = [pid for pid, port in cursor.fetchall() if port in ports]
    return [*web, *backends]


def cpu_per_request(client: PathClient, group: int, rounds: int) -> dict[str, float]:
    """CPU ms the servers spend on a request of each kind (blocks of ``rounds``)."""
    for index in range(4):  # every worker has its database connection
        client.ping(index)
        client.respondent(index)
    pids = server_pids(group)

    def block(action: Callable[[int], object]) -> float:
        before = cpu_seconds(pids)
        for _ in range(rounds):
            action(0)
        time.sleep(0.2)  # work after the last response
        return (cpu_seconds(pids) - before) * 1e3 / rounds

    ping = block(client.ping)
    insert = block(client.insert)
    form = block(client.form)
    respondent = block(client.respondent)
    return {"ping": ping, "insert": insert, "form": form, "submit": respondent - form}


def prepare_baseline_table() -> None:
    """Create the trivial insert's table (needs Django set up)."""
    from django.db import connection

    from benchmarks.baseline_site import CREATE_TABLE

    with connection.cursor() as cursor:
        cursor.execute(CREATE_TABLE)


def format_runs(runs: list[RunFigures]) -> str:
    """One line per run, wall clock then CPU time."""
    head = (
        f"{'run':>3} {'ping':>6} {'insert':>7} {'GET':>6} {'POST':>6} "
        f"{'GET÷ping':>9} {'POST÷ins':>9} {'cap/s':>7} {'rate/s':>7} "
        f"{'GET p50':>8} {'GET p99':>8} {'POST p50':>9} {'POST p99':>9} {'late':>5}"
    )
    lines = [
        "serial p50 in ms (one request at a time); capacity in respondents/s;",
        "fixed rate = capacity ÷ 2, p50/p99 in ms from the scheduled start",
        head,
    ]
    cpu_lines = [
        "CPU ms a request in gunicorn and its PostgreSQL backends (blocks of "
        "the same request)",
        f"{'run':>3} {'ping':>6} {'insert':>7} {'GET':>6} {'POST':>6} "
        f"{'GET÷ping':>9} {'POST÷ins':>9}",
    ]
    for number, r in enumerate(runs, start=1):
        lines.append(
            f"{number:>3} {r.ping_p50:>6.2f} {r.insert_p50:>7.2f} {r.get_p50:>6.2f} "
            f"{r.post_p50:>6.2f} {r.get_ratio:>9.2f} {r.post_ratio:>9.2f} "
            f"{r.capacity:>7.1f} {r.rate:>7.1f} {r.rate_get_p50:>8.1f} "
            f"{r.rate_get_p99:>8.1f} {r.rate_post_p50:>9.1f} "
            f"{r.rate_post_p99:>9.1f} {r.rate_late:>5}"
        )
        c = r.cpu
        cpu_lines.append(
            f"{number:>3} {c['ping']:>6.2f} {c['insert']:>7.2f} {c['form']:>6.2f} "
            f"{c['submit']:>6.2f} {r.cpu_get_ratio:>9.2f} {r.cpu_post_ratio:>9.2f}"
        )
    lines.extend(cpu_lines)
    return "\n".join(lines)


def _raise_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _measure(
    stack: harness.Stack, path: str, args: argparse.Namespace
) -> tuple[PathClient, list[RunFigures]]:
    """Warm every process, then ``args.runs`` runs of every measurement,
    each printed as it ends; the client (its recorder) and the runs."""
    client = PathClient(stack.port, path)
    for index in range(4 * args.web_workers):  # warm every process
        client.ping(index)
        client.insert(index)
        client.respondent(index)
    runs = []
    for _ in range(args.runs):
        ping, insert, got, sent = serial(client, args.serial)
        cap = capacity(client, args.capacity_concurrency, args.capacity_seconds)
        rate = cap / 2
        fixed = fixed_rate(client, rate, args.rate_seconds)
        group = stack.processes[0].process.pid
        cpu = cpu_per_request(client, group, args.cpu)
        runs.append(RunFigures(ping, insert, got, sent, cap, rate, *fixed, cpu=cpu))
        print(format_runs(runs).splitlines()[len(runs) + 2], flush=True)
        print(format_runs(runs).splitlines()[-2], flush=True)
    return client, runs


def _report(
    args: argparse.Namespace,
    runs: list[RunFigures],
    consistency: load_checks.Consistency,
    client_problems: list[str],
) -> list[str]:
    """Print the figures and the checks after the load; the problems found."""
    problems = consistency.problems()
    print(
        f"gunicorn workers: {args.web_workers}; Celery workers: "
        f"{args.celery_workers}; rate limits off"
    )
    print(format_runs(runs))
    print(
        f"accepted {consistency.accepted} = stored {consistency.stored} = reports "
        f"per question {sorted(set(consistency.reports.values()))} = tallied "
        f"{sorted(set(consistency.tallied.values()))}; tallies equal a recount: "
        f"{'yes' if consistency.recount_equal else 'NO'}; server errors "
        f"{consistency.server_errors}, failed connections "
        f"{consistency.failed_requests}, other non-2xx {consistency.unexpected}"
    )
    for problem in [*problems, *client_problems[:5]]:
        print(f"  problem: {problem}")
    return problems


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serial", type=int, default=300, help="rounds per run")
    parser.add_argument("--capacity-concurrency", type=int, default=8)
    parser.add_argument("--capacity-seconds", type=float, default=20)
    parser.add_argument("--rate-seconds", type=float, default=30)
    parser.add_argument(
        "--cpu", type=int, default=200, help="rounds per CPU-time block"
    )
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--celery-workers", type=int, default=2)
    parser.add_argument("--drain-timeout", type=float, default=180)
    parser.add_argument("--keep-logs", action="store_true")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    signal.signal(signal.SIGTERM, _raise_on_sigterm)

    database_url = os.environ.get("DATABASE_URL") or harness.DEFAULT_DATABASE_URL
    broker_url = os.environ.get("CELERY_BROKER_URL") or harness.DEFAULT_REDIS_URL
    cache_url = os.environ.get("CACHE_URL") or broker_url
    if harness.ensure_database(database_url):
        print(f"created database {urlsplit(database_url).path.lstrip('/')}")
    harness.setup_django(database_url)
    prepare_baseline_table()
    survey = harness.create_survey()
    log_dir = Path(tempfile.mkdtemp(prefix="deniable-respond-"))
    failed = True
    try:
        with harness.Stack(
            database_url=database_url,
            broker_url=broker_url,
            cache_url=cache_url,
            web_workers=args.web_workers,
            celery_workers=args.celery_workers,
            log_dir=log_dir,
            web_settings=WEB_SETTINGS,
            # One database connection per worker for the whole run, so the CPU
            # time of its backend is all counted.
            env={"DATABASE_CONN_MAX_AGE": "3600"},
        ) as stack:
            client, runs = _measure(stack, harness.respond_path(survey), args)
            drained = load_checks.wait_for_drain(
                survey.pk, broker_url, args.drain_timeout
            )
        consistency = load_checks.checked(
            survey.pk, broker_url, [client.recorder], drained_after=drained
        )
        failed = bool(_report(args, runs, consistency, client.recorder.problems))
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
