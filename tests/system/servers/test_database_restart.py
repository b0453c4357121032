"""A PostgreSQL restart under gunicorn: a clear 503; retries store once.

The compose ``web`` command (gunicorn) runs against a PostgreSQL cluster of
the test's own; the test stops that cluster (``pg_ctl stop -m fast``) and
starts it again on the same port.  The middleware's answers inside Django's
request handling are tested in ``tests/surveys/test_database_outage.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import psycopg
import pytest
from django.urls import resolve, reverse

from benchmarks.http_client import request
from benchmarks.respondent import Mechanisms
from surveys.collection.tokens import receipt_code_hash
from tests.conftest import clean_env, free_port, run_manage, wait_for_http
from tests.own_servers import (
    OwnPostgres,
    fetch_form,
    header,
    new_answers,
    post_form,
)
from tests.surveys.compose import service_command
from tests.surveys.test_database_outage import MESSAGE, RETRY_AFTER


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    """A running PostgreSQL cluster of this test's own, removed afterwards."""
    cluster = OwnPostgres(free_port())
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


def receipt_names(database_url: str, answer: dict) -> int | None:
    """The submission a JSON answer's receipt link names (None: no submission)."""
    code = resolve(answer["receipt_url"]).kwargs["receipt"]
    with psycopg.connect(database_url) as db:
        row = db.execute(
            "SELECT id FROM collection_submission WHERE receipt_hash = %s",
            [receipt_code_hash(code)],
        ).fetchone()
    return row[0] if row else None


def stored_with_key(database_url: str, key: str) -> int:
    """Submissions stored under idempotency key ``key`` (read with psycopg)."""
    with psycopg.connect(database_url) as db:
        (count,) = db.execute(
            "SELECT count(*) FROM collection_submission WHERE idempotency_key = %s",
            [key],
        ).fetchone()
    return count


def test_postgresql_restart_answers_503_then_a_retried_submission_is_stored_once(
    own_postgres, start_process
):
    database_url = own_postgres.create_database("deniable")
    port = free_port()
    env = clean_env(
        DATABASE_URL=database_url,
        CACHE_URL="",
        DEBUG="false",
        DB_UNAVAILABLE_RETRY_AFTER=str(RETRY_AFTER),
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
    )
    migrated = run_manage("migrate", "--noinput", env=env)
    assert migrated.returncode == 0, migrated.stderr
    seeded = run_manage("seed_demo", "--respondents", "0", env=env)
    assert seeded.returncode == 0, seeded.stderr
    consent = re.search(r"Answer it at (\S+)", seeded.stdout).group(1)
    token = resolve(consent).kwargs["public_token"]
    respond = reverse("collection:respond", args=[token])
    web = start_process(service_command("web"), env, name="gunicorn")
    wait_for_http(f"http://127.0.0.1:{port}/healthz")
    page = fetch_form(port, respond)
    mechanisms = Mechanisms()
    first_key, first_body = new_answers(page, mechanisms, seed=1)
    assert post_form(port, respond, page, first_body).status == 201

    own_postgres.stop("fast")
    key, answers = new_answers(page, mechanisms, seed=2)
    refused = post_form(port, respond, page, answers)
    form_refused = post_form(port, respond, page, answers, json=False)
    page_refused = request(port, "GET", respond)
    health = request(port, "GET", "/healthz")

    assert refused.status == 503
    assert header(refused, "Retry-After") == str(RETRY_AFTER)
    problem = json.loads(refused.body)
    assert problem["code"] == "database_unavailable"
    assert problem["retry_after"] == RETRY_AFTER
    assert MESSAGE in problem["error"]
    assert f"wait {RETRY_AFTER} seconds" in problem["error"]
    assert refused.seconds < 2, f"the 503 took {refused.seconds:.2f} s"
    for page_answer in (form_refused, page_refused):
        assert page_answer.status == 503
        assert header(page_answer, "Retry-After") == str(RETRY_AFTER)
        assert header(page_answer, "Content-Type").startswith("text/html")
        text = page_answer.body.decode()
        assert "Temporarily unavailable" in text and MESSAGE in text
    assert health.status == 503
    assert header(health, "Retry-After") == str(RETRY_AFTER)
    assert json.loads(health.body) == {
        "database": "unavailable",
        "retry_after": RETRY_AFTER,
    }
    print(
        f"\nPostgreSQL down: submission answered 503 in {refused.seconds * 1000:.0f}"
        f" ms, the page in {page_refused.seconds * 1000:.0f} ms, Retry-After "
        f"{header(refused, 'Retry-After')}"
    )

    own_postgres.start()
    stored = post_form(port, respond, page, answers)  # the page's "Send again"
    again = post_form(port, respond, page, answers)
    assert (stored.status, again.status) == (201, 200), stored.body
    assert json.loads(stored.body)["created"] is True
    replayed = json.loads(again.body)
    assert set(replayed) == {"receipt_url", "created", "redirect_url"}
    assert replayed["created"] is False
    assert replayed["redirect_url"] == ""  # this survey sets no completion redirect
    # The same submission's receipt, under a new random code (the one sent
    # before may never have arrived; only the newest works).
    assert receipt_names(database_url, replayed) is not None
    assert receipt_names(database_url, json.loads(stored.body)) is None
    assert stored_with_key(database_url, key) == 1
    assert stored_with_key(database_url, first_key) == 1

    warnings = [
        line for line in web.output().splitlines() if "surveys.middleware" in line
    ]
    assert len(warnings) == 3, warnings  # two POSTs and the page; not /healthz
    for line in warnings:
        assert " WARNING surveys.middleware Database unavailable during " in line
        assert "collection:respond (OperationalError: " in line
        assert key not in line and token not in line and "report" not in line
