"""The raw reports CSV's cost per report, against its budget, at 10^5 and 10^6.

Usage::

    DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/deniable_export_bench \
        .venv/bin/python benchmarks/raw_export.py [--sizes 100000,1000000]
            [--repeat 3]

Needs a scratch PostgreSQL database (created and migrated if missing; nothing
else should use it).  The survey is ``results_at_n.py``'s
(``snapshot_update.make_survey``: one protected choice question and one
optional unprotected one, answered, or skipped in one submission of five).
It grows to each size by COPY (``bulk.store_responses``) and is released as
a worker releases it (the tallies, then the snapshot; every submission in the
release).  Then the raw reports CSV (``raw_reports.reports_csv``, streamed,
as the download and the export job read it) is read to the end ``--repeat``
times after a warm-up: the median wall and CPU time of this process
(``time.process_time``: what the web or worker process spends; PostgreSQL's
own time is only in the wall figure) per stored report, every row of the
file included (a report, an answer or a missing code per submission); then
once more under ``tracemalloc`` for the peak of Python memory it held.

The budget: at most ``BUDGET_CPU_US`` µs of CPU per report, and memory that
does not grow with n.  Prints the load average before and after: every
figure is of this machine at its load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bulk import store_responses  # noqa: E402 (after the path is set)
from benchmarks.harness import ensure_database, setup_django  # noqa: E402
from benchmarks.snapshot_update import make_survey  # noqa: E402

DEFAULT_DATABASE_URL = (
    "postgres://postgres:postgres@127.0.0.1:5432/deniable_export_bench"
)
BUDGET_CPU_US = 20.0


def read_through(survey) -> None:
    """The whole raw reports CSV of ``survey``, read and dropped line by line."""
    from surveys.analysis.exports import raw_reports

    for _ in raw_reports.reports_csv(survey):
        pass


def timed(survey, repeat: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of a whole read, after one warm-up read."""
    read_through(survey)
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        read_through(survey)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def peak_mib(survey) -> float:
    """The peak of Python memory held while reading the whole export."""
    tracemalloc.start()
    try:
        read_through(survey)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def release(survey_id: int) -> None:
    """What a worker runs after reports arrive: the tallies, then the snapshot
    that releases every stored submission (no batch held back)."""
    from django.test.utils import override_settings

    from surveys.analysis.tallies import services, snapshots

    with override_settings(SNAPSHOT_MIN_NEW_SUBMISSIONS=1):
        services.tallies_refresh(survey_id=survey_id)
        snapshots.snapshot_refresh(survey_id=survey_id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = sorted(int(float(size)) for size in args.sizes.split(","))
    database_url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    ensure_database(database_url)
    setup_django(database_url)
    from surveys.collection.models import Report

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"{'reports':>9} | {'wall µs/report':>14} {'CPU µs/report':>13} | "
        f"{'peak MiB':>8} | budget ≤ {BUDGET_CPU_US:.0f} µs CPU"
    )
    rng = np.random.default_rng(20261207)
    survey = make_survey()
    stored, over = 0, False
    for size in sizes:
        store_responses(survey, size - stored, rng)
        stored = size
        release(survey.pk)
        reports = Report.objects.filter(survey_id=survey.pk).count()
        wall, cpu = timed(survey, args.repeat)
        cpu_us = cpu / reports * 1e6
        over |= cpu_us > BUDGET_CPU_US
        print(
            f"{reports:>9,} | {wall / reports * 1e6:>14.1f} {cpu_us:>13.1f} | "
            f"{peak_mib(survey):>8.1f} | {'over' if cpu_us > BUDGET_CPU_US else 'ok'}",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
