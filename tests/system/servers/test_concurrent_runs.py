"""Two test runs at once on one machine both pass and leave each other alone.

Each case launches two runs of the suite's own command (``python -m pytest``,
as ``scripts/test`` runs it) at the same time, on a subset that uses
PostgreSQL, Redis and a Celery worker: the tally tasks and the debounce
markers in Redis, the rate-limit counters in Redis, 50 concurrent submissions
on one invitation, and a worker started from the compose command.

- With nothing given, each run starts a PostgreSQL cluster and a Redis of its
  own on free ports.
- With ``TEST_DATABASE_URL`` and ``TEST_REDIS_URL`` naming the SAME servers
  for both runs (here a cluster and a Redis this test starts), each run
  creates a test database of its own name and keeps to keys of its own; a
  database and a key that were there before both runs are still there after,
  unchanged, and neither run leaves a test database behind.

docs/testing.md, section 7.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest
import redis

from tests.conftest import ROOT, clean_env
from tests.own_servers import OwnPostgres

SUBSET = [
    "tests/surveys/analysis/test_tasks.py",
    "tests/surveys/collection/test_rate_limits.py",
    "tests/surveys/collection/test_concurrency.py",
    "tests/system/servers/test_celery_worker.py",
]
SERVICE_VARIABLES = ("TEST_DATABASE_URL", "TEST_REDIS_URL")


def collected(env: dict[str, str]) -> int:
    """How many tests the subset holds."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", *SUBSET],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    found = re.search(r"(\d+) tests? collected", run.stdout)
    assert found, run.stdout + run.stderr
    return int(found.group(1))


def run_twice_at_once(env: dict[str, str], logs: Path) -> list[tuple[int, str]]:
    """Start two runs of the subset together; (exit code, output) of each."""
    runs = []
    for name in ("first", "second"):
        log = (logs / f"{name}.log").open("w")
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *SUBSET],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        runs.append((process, log, logs / f"{name}.log"))
    results = []
    for process, log, path in runs:
        try:
            code = process.wait(timeout=1200)
        finally:
            if process.poll() is None:
                process.kill()
            log.close()
        results.append((code, path.read_text()))
    return results


def assert_both_passed(results: list[tuple[int, str]], expected: int) -> None:
    for code, output in results:
        summary = output.strip().splitlines()[-1]
        assert code == 0, output[-5000:]
        assert re.search(rf"\b{expected} passed\b", summary), summary
        print(f"\n{summary}")


def without_service_variables() -> dict[str, str]:
    env = clean_env()
    for name in SERVICE_VARIABLES:
        env.pop(name, None)
    return env


def test_two_runs_with_their_own_services_at_once_both_pass(tmp_path: Path) -> None:
    env = without_service_variables()
    expected = collected(env)
    started = time.monotonic()
    results = run_twice_at_once(env, tmp_path)
    print(f"\ntwo runs, own services: {time.monotonic() - started:.0f} s")
    assert_both_passed(results, expected)


@pytest.fixture
def shared_servers(start_process):
    """A PostgreSQL and a Redis both runs are given, as two people might share."""
    from tests.own_servers import OwnRedis

    cluster = OwnPostgres.on_a_free_port(max_connections=300)
    try:
        yield cluster, OwnRedis.on_a_free_port(start_process)
    finally:
        cluster.destroy()


def test_two_runs_given_the_same_servers_at_once_both_pass_and_touch_nothing_else(
    shared_servers, tmp_path: Path
) -> None:
    cluster, redis_server = shared_servers
    # Someone's data on the shared servers, under the names the suite would use.
    kept_url = cluster.create_database("test_deniable")
    with psycopg.connect(kept_url, autocommit=True) as db:
        db.execute("CREATE TABLE kept (note text)")
        db.execute("INSERT INTO kept VALUES ('still here')")
    kept_key, kept_value = f"kept-{uuid.uuid4().hex}", "still here"
    client = redis.Redis.from_url(redis_server.url(), decode_responses=True)
    client.set(kept_key, kept_value)

    env = without_service_variables()
    env["TEST_DATABASE_URL"] = cluster.url("deniable")
    env["TEST_REDIS_URL"] = redis_server.url()
    expected = collected(env)
    started = time.monotonic()
    results = run_twice_at_once(env, tmp_path)
    print(f"\ntwo runs, shared servers: {time.monotonic() - started:.0f} s")

    assert_both_passed(results, expected)
    with psycopg.connect(kept_url) as db:
        assert db.execute("SELECT note FROM kept").fetchall() == [("still here",)]
    with psycopg.connect(cluster.url()) as db:
        databases = {
            name
            for (name,) in db.execute(
                "SELECT datname FROM pg_database WHERE NOT datistemplate"
            )
        }
    assert databases == {"postgres", "test_deniable"}, databases
    assert client.get(kept_key) == kept_value
    client.close()
