"""A real Celery worker, started from the compose command, runs a task via Redis."""

import uuid

import pytest
from celery import Celery

from tests.conftest import clean_env
from tests.surveys.compose import service_command


@pytest.mark.django_db
def test_worker_process_executes_a_task_through_real_redis(
    start_process, redis_url, test_database_url
):
    queue = f"test-{uuid.uuid4().hex}"
    env = clean_env(
        DATABASE_URL=test_database_url,
        CELERY_BROKER_URL=redis_url,
        CELERY_RESULT_BACKEND=redis_url,
    )
    worker = start_process(
        [
            *service_command("worker"),
            "--concurrency",
            "1",
            "--hostname",
            f"{queue}@%h",
            "--queues",
            queue,
        ],
        env,
        name="worker",
    )
    client = Celery("test-client", broker=redis_url, backend=redis_url)
    client.conf.update(task_serializer="json", accept_content=["json"])
    try:
        result = client.send_task("surveys.analysis.tasks.health_check", queue=queue)
        value = result.get(timeout=90)
    except Exception as error:
        raise AssertionError(
            f"{error!r}\n--- worker log ---\n{worker.output()}"
        ) from None
    finally:
        client.close()
    assert value["database"] == "ok"
    assert value["worker"]

    worker.stop()
    assert worker.process.returncode is not None
