"""A database outage answers a clear 503 with Retry-After; retries store once.

The first test runs the compose ``web`` command (gunicorn) against a PostgreSQL
cluster of its own, stops that cluster (``pg_ctl stop -m fast``) and starts it
again on the same port.  The others drive the middleware through Django's real
request handling on the suite's database: the failure comes from the database
layer itself (``connection.execute_wrapper`` refuses every query, as a server
that went away does), never from a stand-in for the middleware.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import psycopg
import pytest
from django.db import OperationalError, connection
from django.http import HttpRequest, JsonResponse
from django.test import Client
from django.urls import path, resolve, reverse

from benchmarks.load import Mechanisms, request
from surveys.api_tokens.services import TOKEN_PREFIX
from surveys.collection import demo
from surveys.collection.models import Submission
from tests.conftest import clean_env, free_port, run_manage, wait_for_http
from tests.own_servers import (
    OwnPostgres,
    fetch_form,
    header,
    new_answers,
    post_form,
)
from tests.surveys.collection.conftest import JSON, body
from tests.surveys.compose import service_command

RETRY_AFTER = 7
MESSAGE = "cannot reach its database right now, so nothing was stored"


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    """A running PostgreSQL cluster of this test's own, removed afterwards."""
    cluster = OwnPostgres(free_port())
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


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
    assert json.loads(again.body) == {
        "receipt_url": json.loads(stored.body)["receipt_url"],
        "created": False,
    }
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


# --- the middleware inside Django's request handling -------------------------------
def refuse(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict
) -> NoReturn:
    """An execute wrapper: every query fails as when the server went away."""
    raise OperationalError(
        'connection to server at "127.0.0.1", port 5432 failed: Connection refused'
    )


def save_session(request: HttpRequest) -> JsonResponse:
    """A view whose session is saved by SessionMiddleware after it returns."""
    request.session["seen"] = True
    return JsonResponse({"ok": True})


def broken(request: HttpRequest) -> JsonResponse:
    """A view with a bug that has nothing to do with the database."""
    raise ZeroDivisionError("a bug")


urlpatterns = [path("session-write", save_session), path("broken", broken)]


@pytest.fixture
def survey(django_user_model):
    """The demo survey (one question of every kind), published."""
    owner = django_user_model.objects.create_user("ida", password="correct horse 42")
    created, _ = demo.demo_survey(owner=owner)
    return created


@pytest.mark.django_db
def test_database_error_in_a_view_answers_503_page_with_retry_after(
    client, survey, settings, caplog
):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    respond = reverse("collection:respond", args=[survey.public_token])
    data = body(survey)
    with caplog.at_level(logging.WARNING), connection.execute_wrapper(refuse):
        page = client.post(respond, data)
        script = client.post(respond, data, **JSON)
    assert page.status_code == script.status_code == 503
    assert page["Retry-After"] == script["Retry-After"] == str(RETRY_AFTER)
    assert "no-store" in page["Cache-Control"]
    assert MESSAGE in page.content.decode()
    assert script.json()["code"] == "database_unavailable"
    warnings = [r for r in caplog.records if r.name == "surveys.middleware"]
    assert [r.levelname for r in warnings] == ["WARNING", "WARNING"]
    logged = " ".join(r.getMessage() for r in warnings)
    assert "POST collection:respond" in logged and "OperationalError" in logged
    assert data["idempotency_key"] not in logged
    assert not any(value in logged for value in data.values() if len(value) > 3)
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_api_paths_answer_json_503_without_an_accept_header(client, settings):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    with connection.execute_wrapper(refuse):
        response = client.get(
            reverse("analysis:api_surveys"),
            HTTP_AUTHORIZATION=f"Bearer {TOKEN_PREFIX}not-a-real-token",
        )
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json()["retry_after"] == RETRY_AFTER


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_database_error_in_session_middleware_answers_503_not_500(settings, caplog):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    # The view succeeds; SessionMiddleware then saves the session and fails.
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING), connection.execute_wrapper(refuse):
        response = client.get("/session-write", HTTP_ACCEPT="application/json")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER)
    assert response.json()["code"] == "database_unavailable"
    assert any(r.name == "surveys.middleware" for r in caplog.records)


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_errors_other_than_database_failures_stay_500():
    client = Client(raise_request_exception=False)
    response = client.get("/broken")
    assert response.status_code == 500
    assert not response.has_header("Retry-After")


@pytest.mark.django_db
def test_healthz_answers_503_with_the_same_retry_after(client, settings):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    with connection.execute_wrapper(refuse):
        response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER)
    assert response.json() == {"database": "unavailable", "retry_after": RETRY_AFTER}


def test_retry_after_below_one_second_is_refused_at_startup():
    checked = run_manage("check", env=clean_env(DB_UNAVAILABLE_RETRY_AFTER="0"))
    assert checked.returncode != 0
    assert "DB_UNAVAILABLE_RETRY_AFTER must be 1 or more" in checked.stderr
