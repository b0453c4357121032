"""Results at any n: a snapshot's update, the dashboard and the raw export at
10^4, 10^5 and 10^6 stored reports, and ingest and refresh with 1, 2 and 4
worker processes.

Usage::

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/deniable_bench \
    CELERY_BROKER_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python benchmarks/results_at_n.py [--quick] [--max 1000000]
            [--new 1000] [--dashboard-requests 200] [--workers 1,2,4]
            [--scaling-backlog 20000] [--ingest-seconds 20] [--no-ingest]

Needs a scratch PostgreSQL database (created and migrated if missing; nothing
else should use it) and, for the ingest part, Redis.  ``--quick`` stops at
10^5 stored reports (``--max 100000``).

**At each size** the survey of ``snapshot_update.make_survey`` (one protected
and one optional unprotected choice question; one submission of five skips
it) grows to the size in stored reports:

* *catch-up and first dashboard after a bulk load*: the backlog up to the
  size is stored with COPY and no ``ANALYZE`` (``bulk.store_responses``, as a
  bulk load leaves the statistics); the catch-up is the tally refresh a worker
  runs on it (seconds, µs and report rows read per new report: 1.00× is each
  read once); "then dashboard" is what follows until the owner's dashboard
  has answered with the new figures: the snapshot a worker builds on the
  current tallies, then the first dashboard GET;
* *update after* ``--new`` *reports*: the same refresh and snapshot after
  ``--new`` more reports, its seconds and the rows it read from every table
  (PostgreSQL's counters, ``snapshot_update.measured``);
* *dashboard*: p50 and p99 server time of ``--dashboard-requests`` GETs of
  the owner's dashboard through Django's test client (in process, no HTTP;
  ``/ping`` the same way is the baseline);
* *export*: the raw reports CSV (``raw_reports.reports_csv``, streamed) read
  to the end: wall and this process's CPU µs per stored report, then a second
  pass under ``tracemalloc`` for the peak of Python memory it held.

**Scaling with worker processes** (``--workers``):

* *refresh*: four surveys, each with ``--scaling-backlog`` reports stored
  and not yet tallied, are caught up by a pool of w processes (one survey's
  refresh per task, as Celery workers run them): reports folded per second
  over the wall time; surveys' refreshes never wait for each other (locks per
  survey), so this grows with w while cores allow;
* *ingest*: the compose ``web`` command (2 processes) and w copies of the
  compose ``worker`` command (``harness.Stack``) take respondents from 8
  closed-loop clients for ``--ingest-seconds`` (``load.run_load``):
  respondents per second, report POST p99, and how long after the last
  submission the workers had tallied every report.

Every figure is of this machine at its current load; run ``uptime`` before.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bulk import store_responses  # noqa: E402
from benchmarks.harness import (  # noqa: E402
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    ensure_database,
    percentile,
    setup_django,
)
from benchmarks.snapshot_update import make_survey, measured  # noqa: E402

SIZES = [10_000, 100_000, 1_000_000]
SCALING_SURVEYS = 4


def _update(survey_id: int) -> None:
    """What a worker runs after reports arrive: the tallies, then the snapshot."""
    from surveys.analysis.tallies import services, snapshots

    services.tallies_refresh(survey_id=survey_id)
    snapshots.snapshot_refresh(survey_id=survey_id)


def _get(client, path: str) -> float:
    """Seconds to answer ``path`` (200 required)."""
    started = time.perf_counter()
    response = client.get(path)
    seconds = time.perf_counter() - started
    if response.status_code != 200:
        sys.exit(f"GET {path} answered {response.status_code}")
    return seconds


def _export(survey) -> tuple[float, float, float]:
    """(wall µs, CPU µs per stored report, peak MiB) of the raw reports CSV."""
    from surveys.analysis.exports import raw_reports
    from surveys.collection.models import Report

    reports = Report.objects.filter(survey_id=survey.pk).count()
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in raw_reports.reports_csv(survey):
        pass
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tracemalloc.start()
    for _ in raw_reports.reports_csv(survey):
        pass
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return wall / reports * 1e6, cpu / reports * 1e6, peak / 2**20


def at_sizes(args: argparse.Namespace) -> None:
    """The table of figures at each size."""
    from django.test import Client
    from django.test.utils import override_settings
    from django.urls import reverse

    from surveys.analysis.results import selectors

    rng = np.random.default_rng(20261207)
    survey = make_survey()
    client = Client(SERVER_NAME="localhost")
    dashboard = reverse("analysis:dashboard", args=[survey.pk])
    print(
        f"{'stored':>9} | {'catch-up':>9} {'µs/report':>9} {'rows/report':>11} "
        f"{'then dashboard':>14} | "
        f"{'update +' + str(args.new):>12} {'rows':>7} | {'dashboard p50/p99 ms':>20} "
        f"{'ping p99':>8} | {'export µs/report':>16} {'CPU µs':>6} {'peak MiB':>8}"
    )
    print("-" * 150)
    stored = 0
    # Every new submission is released at once (no batch held back).
    with override_settings(SNAPSHOT_MIN_NEW_SUBMISSIONS=1):
        for size in (s for s in SIZES if s <= args.max):
            backlog = size - args.new - stored
            store_responses(survey, backlog, rng, analyze=False)
            client.force_login(survey.owner)  # within the idle timeout
            catch_up, _, catch_up_reports = measured(lambda: _refresh(survey.pk))
            started = time.perf_counter()
            _update(survey.pk)  # the snapshot, on tallies already current
            _get(client, dashboard)
            first = time.perf_counter() - started
            store_responses(survey, args.new, rng, analyze=False)
            stored = size
            update_s, update_rows, _ = measured(lambda: _update(survey.pk))
            responses = selectors.latest_snapshot(survey_id=survey.pk).responses
            if responses != size:
                sys.exit(f"the snapshot holds {responses} responses, not {size}")
            times = [_get(client, dashboard) for _ in range(args.dashboard_requests)]
            pings = [_get(client, "/ping") for _ in range(args.dashboard_requests)]
            export_us, export_cpu, peak = _export(survey)
            print(
                f"{size:>9,} | {catch_up:>7.1f} s {catch_up / backlog * 1e6:>9.1f} "
                f"{catch_up_reports / backlog:>10.2f}× {first:>12.2f} s | "
                f"{update_s:>10.3f} s {update_rows:>7,} | "
                f"{statistics.median(times) * 1e3:>9.1f} "
                f"{percentile(times, 99) * 1e3:>10.1f} "
                f"{percentile(pings, 99) * 1e3:>8.1f} | {export_us:>16.1f} "
                f"{export_cpu:>6.1f} {peak:>8.1f}",
                flush=True,
            )


def _child(database_url: str) -> None:
    """A pool process: Django against the same database, no migration."""
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    import django

    django.setup()


def _refresh(survey_id: int) -> int:
    from surveys.analysis.tallies import services

    return services.tallies_refresh(survey_id=survey_id).folded


def refresh_scaling(args: argparse.Namespace, database_url: str) -> None:
    """Reports folded per second by pools of w processes, one survey a task."""
    rng = np.random.default_rng(20261208)
    print(f"\nrefresh: {SCALING_SURVEYS} surveys × {args.scaling_backlog:,} reports")
    print(f"{'processes':>9} | {'seconds':>8} {'reports/s':>10} {'× 1 process':>11}")
    first = None
    for workers in args.workers:
        surveys = [make_survey() for _ in range(SCALING_SURVEYS)]
        for survey in surveys:
            store_responses(survey, args.scaling_backlog, rng, analyze=False)
        context = get_context("spawn")
        with ProcessPoolExecutor(
            workers, mp_context=context, initializer=_child, initargs=(database_url,)
        ) as pool:
            list(pool.map(_child, [database_url] * workers))  # started, warm
            started = time.perf_counter()
            folded = sum(pool.map(_refresh, [s.pk for s in surveys]))
            seconds = time.perf_counter() - started
        rate = folded / seconds
        first = first or rate
        print(f"{workers:>9} | {seconds:>8.2f} {rate:>10,.0f} {rate / first:>10.2f}×")


def ingest_scaling(args: argparse.Namespace, database_url: str) -> None:
    """Respondents per second through gunicorn with w Celery worker processes."""
    from benchmarks.harness import Stack, create_survey, respond_path
    from benchmarks.load import run_load

    broker_url = os.environ.get("CELERY_BROKER_URL") or DEFAULT_REDIS_URL
    print(f"\ningest: 2 web processes, 8 clients, {args.ingest_seconds:g} s")
    print(
        f"{'workers':>7} | {'respondents/s':>13} {'POST p99 ms':>11} "
        f"{'tallied after s':>15} {'problems':>8}"
    )
    for workers in args.workers:
        survey = create_survey()
        with Stack(
            database_url=database_url,
            broker_url=broker_url,
            web_workers=2,
            celery_workers=workers,
        ) as stack:
            result = run_load(
                port=stack.port,
                survey_id=survey.pk,
                path=respond_path(survey),
                broker_url=broker_url,
                concurrency=8,
                duration=args.ingest_seconds,
                ping_duration=2,
                web_workers=2,
                celery_workers=workers,
            )
        drained = result.consistency.drained_after
        print(
            f"{workers:>7} | {result.respondents.per_second:>13.1f} "
            f"{result.submit.p99 * 1e3:>11.0f} "
            f"{'timed out' if drained is None else f'{drained:.1f}':>15} "
            f"{len(result.consistency.problems()):>8}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=float, default=1e6, help="largest size")
    parser.add_argument("--quick", action="store_true", help="stop at 10^5")
    parser.add_argument("--new", type=int, default=1_000, help="new reports")
    parser.add_argument("--dashboard-requests", type=int, default=200)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--scaling-backlog", type=int, default=20_000)
    parser.add_argument("--ingest-seconds", type=float, default=20)
    parser.add_argument("--no-ingest", action="store_true")
    args = parser.parse_args()
    args.max = min(args.max, 1e5) if args.quick else args.max
    args.workers = [int(w) for w in args.workers.split(",")]
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    ensure_database(database_url)
    setup_django(database_url)
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores", flush=True)
    at_sizes(args)
    refresh_scaling(args, database_url)
    if not args.no_ingest:
        ingest_scaling(args, database_url)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
