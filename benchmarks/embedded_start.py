"""How long README command 1 takes to serve, cold (a fresh clone) and warm (again).

Usage::

    .venv/bin/python benchmarks/embedded_start.py [--repeat 3]

Runs the steps of ``scripts/serve`` after its install step, each as its own
process as the script runs them, against an embedded PostgreSQL cluster in a
scratch directory (removed at the end; the checkout's own ``var/postgres`` is
never touched):

* ``cluster``: ``manage.py embedded_postgres start``: cold, ``initdb``, start
  and create the database; warm, start the stopped cluster;
* ``migrate``: ``manage.py migrate`` (cold: every migration; warm: none to run);
* ``seed_demo``: the demo researcher and survey with 500 simulated respondents
  (cold), or finding them there (warm);
* ``runserver``: until the home page answers 200.

Between the cold and the warm run the server and the cluster are stopped, as
when the developer pressed Ctrl-C.  Each figure is the median of ``--repeat``
runs, in seconds of wall-clock time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from surveys import embedded_postgres  # noqa: E402
from tests.conftest import clean_env, free_port, wait_for_http  # noqa: E402

STEPS = ("cluster", "migrate", "seed_demo", "runserver")


def manage(*args: str, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


def timed_start(directory: Path, env: dict[str, str]) -> dict[str, float]:
    """Seconds of each step of one start of the development server."""
    times = {}
    began = time.perf_counter()
    manage("embedded_postgres", "start", "--directory", str(directory), env=env)
    times["cluster"] = time.perf_counter() - began
    for step, args in (
        ("migrate", ("migrate", "--noinput")),
        ("seed_demo", ("seed_demo",)),
    ):
        began = time.perf_counter()
        manage(*args, env=env)
        times[step] = time.perf_counter() - began
    port = free_port()
    began = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/", timeout=120)
        times["runserver"] = time.perf_counter() - began
    finally:
        server.terminate()
        server.wait(timeout=30)
    return times


def cold_and_warm() -> tuple[dict[str, float], dict[str, float]]:
    """One cold start in a fresh directory, a stop, then one warm start."""
    scratch = Path(tempfile.mkdtemp(prefix="deniable-start-"))
    scratch.chmod(0o755)  # as root the server runs as postgres, who must reach it
    directory = scratch / "postgres"
    env = clean_env(DATABASE_URL=embedded_postgres.database_url(directory))
    try:
        cold = timed_start(directory, env)
        manage("embedded_postgres", "stop", "--directory", str(directory), env=env)
        warm = timed_start(directory, env)
        return cold, warm
    finally:
        embedded_postgres.Cluster(directory).remove()
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="median of N runs")
    args = parser.parse_args()
    runs = [cold_and_warm() for _ in range(args.repeat)]
    version = subprocess.run(
        [str(embedded_postgres.binaries() / "postgres"), "--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(f"{version}; {os.cpu_count()} cores; median of {args.repeat} runs (s)")
    print(f"{'step':<12} {'cold':>8} {'warm':>8}")
    totals = {"cold": 0.0, "warm": 0.0}
    for step in STEPS:
        cold = statistics.median(run[0][step] for run in runs)
        warm = statistics.median(run[1][step] for run in runs)
        totals["cold"] += cold
        totals["warm"] += warm
        print(f"{step:<12} {cold:>8.1f} {warm:>8.1f}")
    print(f"{'total':<12} {totals['cold']:>8.1f} {totals['warm']:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
