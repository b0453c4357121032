"""The load benchmark, run small: the real stack under concurrent respondents.

gunicorn and two Celery workers (the compose commands) run against the test
PostgreSQL database and a Redis database of the tests' own; eight concurrent
clients send about 150 submissions as the browser would.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from django.urls import reverse

from benchmarks import load
from tests.surveys.compose import service_command

SUBMISSIONS = 150


@pytest.fixture
def redis_db(redis_url: str) -> Iterator[str]:
    """The tests' Redis database, emptied before and after (no stale tasks)."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield redis_url
    client.flushdb()
    client.close()


def test_load_benchmark_starts_the_compose_web_and_worker_commands():
    assert service_command("web") == load.WEB_COMMAND
    assert service_command("worker") == load.WORKER_COMMAND


@pytest.mark.django_db
def test_trivial_view_answers_ok_without_the_database(
    client, django_assert_num_queries
):
    with django_assert_num_queries(0):
        response = client.get(reverse("ping"))
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db(transaction=True)
def test_under_load_every_accepted_submission_is_stored_and_tallied_once(
    test_database_url, redis_db, tmp_path
):
    survey = load.create_survey()
    stack = load.Stack(
        database_url=test_database_url,
        broker_url=redis_db,
        web_workers=2,
        celery_workers=2,
        log_dir=tmp_path,
    )
    with stack:
        result = load.run_load(
            port=stack.port,
            survey_id=survey.pk,
            path=load.respond_path(survey),
            broker_url=redis_db,
            concurrency=8,
            duration=40,
            ping_duration=2,
            max_submissions=SUBMISSIONS,
            drain_timeout=30,
        )
        logs = "\n".join(f"--- {k} ---\n{v[-3000:]}" for k, v in stack.logs().items())
    report = f"{load.format_result(result)}\n{logs}"

    consistency = result.consistency
    assert consistency.problems() == [], report
    assert consistency.server_errors == consistency.failed_requests == 0, report
    assert consistency.accepted == consistency.stored == SUBMISSIONS, report
    assert set(consistency.tallied.values()) == {SUBMISSIONS}, report
    assert consistency.recount_equal, report
