"""The researchers' reads benchmark (``benchmarks/reads.py``), run small.

It starts its own PostgreSQL cluster and Redis, bulk-loads reports, signs in
and times every read in process and over HTTP through gunicorn; run small here
so that a change to the loader, the pages or the sign-in cannot break the
benchmark unnoticed (it once failed only after an hour's load, when its
session had outlived the idle timeout).
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT, clean_env

READS = (
    "dashboard",
    "live",
    "estimates.csv",
    "estimates.json",
    "API survey",
    "reports.csv start",
)


def test_the_reads_benchmark_times_every_read_in_process_and_over_http():
    env = clean_env()
    env.pop("DJANGO_SETTINGS_MODULE", None)  # the benchmark's own, with its baselines
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "reads.py"),
            *("--sizes", "200", "--repeat", "1", "--runs", "1", "--http", "3"),
            *("--queries", "--shared-cache"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    header = next(line for line in out.splitlines() if line.strip().startswith("case"))
    assert [cell.strip() for cell in header.split("|")][4:] == list(READS), header
    assert "8 options, n = 200" in out and "201 levels" in out, out
    # Every in-process cell is a latency and its ratio to the trivial view.
    row = next(line for line in out.splitlines() if "8 options, n = 200 |" in line)
    assert row.count("×") == len(READS), row
