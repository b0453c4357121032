"""A worker holding a task rides out a Redis restart (surveys/broker.py)."""

from __future__ import annotations

import time

import pytest
from celery import Celery

from tests.conftest import clean_env
from tests.surveys.compose import service_command


def _client(url: str) -> Celery:
    client = Celery("test-client", broker=url, backend=url)
    client.conf.update(task_serializer="json", accept_content=["json"])
    return client


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.django_db
def test_worker_holding_a_countdown_task_survives_redis_restart_and_runs_new_tasks(
    own_redis, start_process, test_database_url
):
    url = own_redis.url()
    worker = start_process(
        [*service_command("worker"), "--concurrency", "1"],
        clean_env(
            DATABASE_URL=test_database_url,
            CELERY_BROKER_URL=url,
            CELERY_RESULT_BACKEND=url,
        ),
        name="worker",
    )
    assert _wait_for(lambda: "ready." in worker.output(), 60), worker.output()
    client = _client(url)
    try:
        # Held unacknowledged by the worker until its countdown ends.
        client.send_task("surveys.analysis.tasks.health_check", countdown=120)
        assert _wait_for(lambda: "received" in worker.output(), 30), worker.output()
    finally:
        client.close()

    own_redis.stop()
    assert _wait_for(lambda: "Connection to broker lost" in worker.output(), 30)
    own_redis.start()
    assert _wait_for(lambda: worker.output().count("Connected to") >= 2, 60), (
        worker.output()
    )

    client = _client(url)
    try:
        value = client.send_task("surveys.analysis.tasks.health_check").get(timeout=60)
    except Exception as error:
        raise AssertionError(
            f"{error!r}\n--- worker log ---\n{worker.output()}"
        ) from None
    finally:
        client.close()
    assert value["database"] == "ok"
    assert worker.process.poll() is None
    assert "Unrecoverable error" not in worker.output()
