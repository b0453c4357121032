"""Results pages and exports read a real streaming replica; the primary while it lags.

A primary PostgreSQL cluster of the test's own, a hot standby made from it
with ``pg_basebackup --write-recovery-conf`` on another port, and gunicorn
with ``DATABASE_URL`` on the primary and ``REPLICA_DATABASE_URL`` on the
standby.  Both servers log every statement (``log_statement=all``), so the
test reads from each server's own log which one ran a request's reads of the
reports.  The standby's replay is paused (``pg_wal_replay_pause``) to make it
lag.  Both clusters are removed at the end, on failure too.
"""

from __future__ import annotations

import csv
import io
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar

import psycopg
import pytest
from django.urls import resolve, reverse

from benchmarks.respondent import Mechanisms
from surveys.embedded_postgres import EmbeddedPostgresError
from tests.conftest import clean_env, free_port, run_manage, wait_for_http
from tests.own_servers import (
    OwnPostgres,
    OwnStandby,
    fetch_form,
    new_answers,
    post_form,
)
from tests.surveys.compose import service_command

DEMO_USER, DEMO_PASSWORD = "demo", "deniable-demo-only"
LOG_EVERY_STATEMENT = "log_statement=all"
# Django quotes table names; the test's own psycopg statements do not.
READS_REPORTS = 'FROM "collection_report"'


@pytest.fixture
def primary() -> Iterator[OwnPostgres]:
    """A primary of this test's own, logging every statement; removed afterwards."""
    cluster = OwnPostgres(free_port())
    try:
        cluster.start(40, LOG_EVERY_STATEMENT)
        yield cluster
    finally:
        cluster.destroy()


def start_standby(primary: OwnPostgres, attempts: int = 3) -> OwnStandby:
    """A running hot standby of ``primary`` (another free port if one is taken)."""
    standby = OwnStandby(primary, free_port())
    for attempt in range(attempts):
        try:
            standby.start(40, LOG_EVERY_STATEMENT)
            return standby
        except EmbeddedPostgresError:
            if attempt == attempts - 1:
                standby.destroy()
                raise
            standby.port = free_port()
    raise AssertionError("unreachable")


class Researcher:
    """A signed-in researcher's browser (cookies of its own)."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(CookieJar())
        )

    def open(self, path: str, data: dict[str, str] | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data else None
        request = urllib.request.Request(self.base + path, data=body)  # noqa: S310
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read().decode()

    def sign_in(self) -> None:
        _, form = self.open("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
        assert token, form[:500]
        status, landed = self.open(
            "/accounts/login/",
            {
                "username": DEMO_USER,
                "password": DEMO_PASSWORD,
                "csrfmiddlewaretoken": token.group(1),
            },
        )
        assert status == 200 and 'name="password"' not in landed, landed[:500]


def snapshot_version(url: str, survey_id: int) -> int:
    with psycopg.connect(url) as db:
        row = db.execute(
            "SELECT version FROM analysis_resultsnapshot WHERE survey_id = %s",
            [survey_id],
        ).fetchone()
    return row[0] if row else 0


def report_count(url: str) -> int:
    with psycopg.connect(url) as db:
        return db.execute("SELECT count(*) FROM collection_report").fetchone()[0]


def replay(standby_url: str, *, paused: bool) -> None:
    """Pause or resume the standby's replay of the primary's log."""
    call = "pg_wal_replay_pause" if paused else "pg_wal_replay_resume"
    with psycopg.connect(standby_url, autocommit=True) as db:
        db.execute(f"SELECT {call}()")
        if paused:  # a pause asked for takes effect at the next record
            deadline = time.monotonic() + 30
            while db.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()[
                0
            ] not in ("paused", "pause requested"):
                assert time.monotonic() < deadline, "the replay did not pause"
                time.sleep(0.05)


def wait_for_snapshot(standby_url: str, survey_id: int, version: int) -> None:
    """Wait until the standby has replayed snapshot ``version`` of the survey."""
    deadline = time.monotonic() + 60
    while snapshot_version(standby_url, survey_id) < version:
        assert time.monotonic() < deadline, f"the standby never got version {version}"
        time.sleep(0.1)


def force_snapshot(env: dict[str, str], survey_id: int) -> None:
    """Release the survey's snapshot now, through Django (the router in
    place), with a batch of one in this process only (the server's is 1000)."""
    done = run_manage(
        "shell",
        "-c",
        "from surveys.analysis.tallies import snapshots; "
        f"snapshots.snapshot_refresh(survey_id={survey_id}, force=True)",
        env={**env, "SNAPSHOT_MIN_NEW_SUBMISSIONS": "1"},
    )
    assert done.returncode == 0, done.stderr


def settled_log(cluster: OwnPostgres) -> str:
    """The cluster's log once it stopped growing for half a second (what an
    earlier request, or the work it queued, ran is in it)."""
    log = cluster.server_log()
    while True:
        time.sleep(0.5)
        again = cluster.server_log()
        if again == log:
            return log
        log = again


def reads_during(clusters, act) -> tuple[object, list[int]]:
    """``act()``'s result and, per cluster, the statements reading reports that
    its own log recorded meanwhile."""
    offsets = [len(settled_log(cluster)) for cluster in clusters]
    result = act()
    counts = [
        settled_log(cluster)[offset:].count(READS_REPORTS)
        for cluster, offset in zip(clusters, offsets, strict=True)
    ]
    return result, counts


def exported_reports(researcher: Researcher, survey_id: int) -> int:
    """The report rows of the survey's raw CSV export."""
    path = reverse("analysis:export_reports_csv", args=[survey_id])
    status, body = researcher.open(path)
    assert status == 200, body[:500]
    rows = csv.reader(io.StringIO(body.lstrip("\ufeff")))
    return sum(1 for row in rows if row and row[0] == "report")


def test_results_and_exports_read_the_replica_and_the_primary_while_it_lags(
    primary, start_process
):
    primary_url = primary.create_database("deniable")
    port = free_port()
    env = clean_env(
        DATABASE_URL=primary_url,
        CACHE_URL="",
        DEBUG="false",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
        # Snapshots only when the test forces one.
        SNAPSHOT_MIN_NEW_SUBMISSIONS="1000",
    )
    for command in (("migrate", "--noinput"), ("seed_demo", "--respondents", "0")):
        done = run_manage(*command, env=env)
        assert done.returncode == 0, done.stderr
    respond = reverse(
        "collection:respond",
        args=[
            resolve(re.search(r"Answer it at (\S+)", done.stdout).group(1)).kwargs[
                "public_token"
            ]
        ],
    )
    with psycopg.connect(primary_url) as db:
        (survey_id,) = db.execute("SELECT id FROM authoring_survey").fetchone()

    standby = start_standby(primary)
    try:
        standby_url = standby.url("deniable")
        env["REPLICA_DATABASE_URL"] = standby_url
        start_process(service_command("web"), env, name="gunicorn")
        wait_for_http(f"http://127.0.0.1:{port}/healthz")
        page = fetch_form(port, respond)
        mechanisms = Mechanisms()

        def submit(seed: int) -> None:  # a write: the standby would refuse it
            _, body = new_answers(page, mechanisms, seed=seed)
            answered = post_form(port, respond, page, body)
            assert answered.status == 201, answered.body[:500]

        for seed in (1, 2):
            submit(seed)
        force_snapshot(env, survey_id)
        wait_for_snapshot(standby_url, survey_id, 1)
        researcher = Researcher(f"http://127.0.0.1:{port}")
        researcher.sign_in()
        dashboard = reverse("analysis:dashboard", args=[survey_id])
        clusters = (primary, standby)

        # Caught up: the dashboard's and the export's reads run on the standby.
        (status, _), (on_primary, on_standby) = reads_during(
            clusters, lambda: researcher.open(dashboard)
        )
        assert status == 200
        assert on_standby > 0 and on_primary == 0, (on_primary, on_standby)
        stored_before = report_count(primary_url)
        exported, (on_primary, on_standby) = reads_during(
            clusters, lambda: exported_reports(researcher, survey_id)
        )
        assert exported == stored_before
        assert on_standby > 0 and on_primary == 0, (on_primary, on_standby)

        # The standby stops replaying; a third response reaches the primary
        # only.  The released snapshot is still one the standby holds: reads
        # stay there (the export lacks the third response).
        replay(standby_url, paused=True)
        submit(3)
        assert report_count(primary_url) > stored_before
        exported, (on_primary, on_standby) = reads_during(
            clusters, lambda: exported_reports(researcher, survey_id)
        )
        assert exported == stored_before == report_count(standby_url)
        assert on_standby > 0 and on_primary == 0, (on_primary, on_standby)

        # A snapshot the standby lacks is released: reads go to the primary.
        held = snapshot_version(standby_url, survey_id)
        force_snapshot(env, survey_id)
        released = snapshot_version(primary_url, survey_id)
        assert released > held == snapshot_version(standby_url, survey_id)
        (status, _), (on_primary, on_standby) = reads_during(
            clusters, lambda: researcher.open(dashboard)
        )
        assert status == 200
        assert on_primary > 0 and on_standby == 0, (on_primary, on_standby)
        exported, (on_primary, on_standby) = reads_during(
            clusters, lambda: exported_reports(researcher, survey_id)
        )
        assert exported == report_count(primary_url) > stored_before
        assert on_primary > 0 and on_standby == 0, (on_primary, on_standby)

        # Replay resumes: once the standby holds the new snapshot, reads return.
        replay(standby_url, paused=False)
        wait_for_snapshot(standby_url, survey_id, released)
        (status, _), (on_primary, on_standby) = reads_during(
            clusters, lambda: researcher.open(dashboard)
        )
        assert status == 200
        assert on_standby > 0 and on_primary == 0, (on_primary, on_standby)
    finally:
        standby.destroy()
