"""Every benchmark in one run, each against its own baseline measured in the same run.

Usage::

    python benchmarks/run_all.py [--full] [--aggregate-n 1000000]
        [--aggregate-clock wall|cpu]
        [--load-concurrency 32] [--load-duration 30] [--refresh-max 1e6]

Sections, in order (each script's docstring says what its columns mean):

1. aggregation (``aggregate.py``): aggregate + estimate time of every mechanism
   as a multiple of ``numpy.bincount`` over the same n, the current counting
   kernels against the earlier row-by-row code, with peak memory, three runs;
2. ingestion (``load.py``): submissions through gunicorn + two Celery workers
   as ratios to the trivial ``/ping`` view under the same concurrency;
3. refresh (``refresh.py``): incremental tally refresh against a full recount,
   for growing numbers of stored reports (``--full``: up to 10^7);
4. JavaScript sampling (``js_samples.py``): samples per second in Node.js and
   headless Chromium, if that script is present;
5. page cost (``page_cost.py``): server time of the builder, respondent and
   dashboard pages at the size limits as ratios to the trivial ``/ping`` view,
   checked against the budget;
6. stored report size (``storage.py``): bytes per stored report per mechanism,
   the JSON payload table against the compact columns, ``--storage-n``
   reports each;
7. the respondent path (``respond_path.py``): the answer page's GET and POST
   against ``/ping`` and a one-row insert, capacity and p99 at half of it,
   ``--respond-runs`` runs;
8. report partitions (``partitions.py``): hash partitions by survey against
   one plain table, ``--partitions-n`` reports (``--full``: 10^6).

PostgreSQL comes from ``DATABASE_URL`` (default: ``deniable_bench`` on
127.0.0.1, created if missing); refresh gets a scratch database of its own
(the same name + ``_refresh``), created empty for the run and dropped after.
Redis comes from ``CELERY_BROKER_URL`` (default ``redis://127.0.0.1:6379/0``).
Each section runs as a subprocess; the exit status is non-zero if any failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import harness  # noqa: E402  (after the path is set)


@dataclass(frozen=True)
class Section:
    """One benchmark script run as a subprocess, and its baseline."""

    title: str
    baseline: str
    command: list[str]  # the interpreter, the script, its options
    env: dict[str, str]
    # Run against a fresh database of its own next to ``env["DATABASE_URL"]``
    # (``scratch_database``), dropped after the run.
    scratch: bool = False


@dataclass(frozen=True)
class Outcome:
    title: str
    status: str  # "ok", "failed (exit N)" or "not run: …"
    seconds: float


def scratch_database(url: str) -> str:
    """A fresh, empty database next to ``url``'s (the name + ``_refresh``)."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_refresh"
    drop_database(parts._replace(path=f"/{name}").geturl())
    with psycopg.connect(
        parts._replace(path="/postgres").geturl(), autocommit=True
    ) as connection:
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return parts._replace(path=f"/{name}").geturl()


def drop_database(url: str) -> None:
    """Drop the database named in ``url`` if it exists."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(
        parts._replace(path="/postgres").geturl(), autocommit=True
    ) as connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(name)
            )
        )


def shown(word: str) -> str:
    """A command word as printed: paths inside the project relative to it."""
    path = Path(word)
    if path.is_absolute() and path.is_relative_to(ROOT):
        return str(path.relative_to(ROOT))
    return word


def run(section: Section) -> Outcome:
    """Run one section, its output going straight to this terminal; a section
    whose script is not in this checkout is reported as not run."""
    script = section.command[1]
    if not (ROOT / script).exists():
        print(f"\n=== {section.title} ===")
        print(f"not run: {script} is not in this checkout")
        return Outcome(section.title, f"not run: {Path(script).name} missing", 0.0)
    print(f"\n=== {section.title} (baseline: {section.baseline}) ===", flush=True)
    print("$ " + " ".join(shown(word) for word in section.command), flush=True)
    env = section.env
    if section.scratch:
        env = {**env, "DATABASE_URL": scratch_database(env["DATABASE_URL"])}
    started = time.monotonic()
    try:
        code = subprocess.run(section.command, cwd=ROOT, env=env, check=False)
    finally:
        if section.scratch:
            drop_database(env["DATABASE_URL"])
    seconds = time.monotonic() - started
    status = "ok" if code.returncode == 0 else f"failed (exit {code.returncode})"
    return Outcome(section.title, status, seconds)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--full", action="store_true", help="refresh up to 10^7 stored reports"
    )
    parser.add_argument("--aggregate-n", type=int, default=1_000_000)
    parser.add_argument(
        "--aggregate-clock",
        choices=["wall", "cpu"],
        default="wall",
        help="aggregation timed by elapsed or by CPU time (a shared machine)",
    )
    parser.add_argument("--load-concurrency", type=int, default=32)
    parser.add_argument("--load-duration", type=float, default=30, help="seconds")
    parser.add_argument("--refresh-max", type=float, default=1e6)
    parser.add_argument("--storage-n", type=int, default=20_000)
    parser.add_argument("--respond-runs", type=int, default=3)
    parser.add_argument("--partitions-n", type=int, default=100_000)
    return parser.parse_args()


def sections(args: argparse.Namespace, database_url: str) -> list[Section]:
    """Every section, in the order of the module's docstring."""
    python = sys.executable
    broker_url = os.environ.get("CELERY_BROKER_URL") or harness.DEFAULT_REDIS_URL
    env = {**os.environ, "CELERY_BROKER_URL": broker_url}
    database = {**env, "DATABASE_URL": database_url}
    return [
        Section(
            "aggregation",
            "numpy.bincount over the same n",
            [
                python,
                "benchmarks/aggregate.py",
                "--n",
                str(args.aggregate_n),
                "--clock",
                args.aggregate_clock,
            ],
            env,
        ),
        Section(
            "ingestion",
            "GET /ping under the same concurrency",
            [
                python,
                "benchmarks/load.py",
                "--concurrency",
                str(args.load_concurrency),
                "--duration",
                str(args.load_duration),
            ],
            database,
        ),
        Section(
            "tally refresh",
            "a full recount of the same stored reports",
            [
                python,
                "benchmarks/refresh.py",
                "--max",
                str(int(1e7 if args.full else args.refresh_max)),
            ],
            database,
            scratch=True,
        ),
        Section(
            "JavaScript sampling",
            "crypto.getRandomValues words/s, same runtime",
            [python, "benchmarks/js_samples.py"],
            env,
        ),
        Section(
            "page cost",
            "GET /ping through the same middleware, same run",
            [python, "benchmarks/page_cost.py"],
            env,
        ),
        Section(
            "stored report size",
            "the JSON payload table, same reports",
            [python, "benchmarks/storage.py", "--n", str(args.storage_n)],
            database,
        ),
        Section(
            "respondent path",
            "GET /ping and a one-row insert, same stack",
            [python, "benchmarks/respond_path.py", "--runs", str(args.respond_runs)],
            database,
        ),
        Section(
            "report partitions",
            "one plain report table, same reports",
            [
                python,
                "benchmarks/partitions.py",
                "--n",
                str(1_000_000 if args.full else args.partitions_n),
            ],
            database,
        ),
    ]


def main() -> int:
    args = _arguments()
    database_url = os.environ.get("DATABASE_URL") or harness.DEFAULT_DATABASE_URL
    harness.ensure_database(database_url)
    outcomes = [run(section) for section in sections(args, database_url)]
    print("\n=== summary ===")
    for outcome in outcomes:
        print(f"{outcome.title:<22}{outcome.status:<34}{outcome.seconds:>8.0f} s")
    return 0 if all(o.status.startswith(("ok", "not run")) for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
