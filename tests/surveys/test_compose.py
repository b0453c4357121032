"""docker-compose.yml describes the stack, and its commands work outside Docker."""

import urllib.request

import pytest

from tests.conftest import clean_env, free_port, wait_for_http
from tests.surveys.compose import compose, service_command

APP_SERVICES = ("migrate", "web", "worker", "beat")


def test_compose_has_every_service_of_the_stack():
    assert set(compose()["services"]) >= {"postgres", "redis", "web", "worker", "beat"}


def test_web_worker_and_beat_share_one_image():
    images = {compose()["services"][name]["image"] for name in APP_SERVICES}
    assert images == {"deniable:latest"}


def test_redis_never_evicts_queued_tasks():
    command = service_command("redis")
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"


@pytest.mark.parametrize("name", ["postgres", "redis", "web", "worker"])
def test_long_running_services_have_healthchecks(name):
    assert compose()["services"][name]["healthcheck"]["test"]


def test_web_starts_only_after_migrations_and_healthy_services():
    services = compose()["services"]
    assert services["web"]["depends_on"]["migrate"]["condition"] == (
        "service_completed_successfully"
    )
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == (
        "service_healthy"
    )


@pytest.mark.django_db
def test_web_command_serves_the_app_outside_docker(start_process, test_database_url):
    port = free_port()
    env = clean_env(
        DATABASE_URL=test_database_url,
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
    )
    start_process(service_command("web"), env, name="gunicorn")
    body = wait_for_http(f"http://127.0.0.1:{port}/healthz")
    assert body == b'{"database": "ok"}'
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
        assert response.status == 200


def test_beat_command_starts_with_the_schedule_from_settings(
    start_process, redis_url, tmp_path
):
    command = service_command("beat")
    command[command.index("--schedule") + 1] = str(tmp_path / "beat-schedule")
    env = clean_env(CELERY_BROKER_URL=redis_url, DATABASE_URL="sqlite:///:memory:")
    beat = start_process([*command, "--loglevel", "DEBUG"], env, name="beat")
    deadline_output = ""
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        deadline_output = beat.output()
        if "clear-expired-sessions" in deadline_output:
            break
        time.sleep(0.25)
    assert beat.process.poll() is None, deadline_output
    assert "beat: Starting" in deadline_output
    assert "clear-expired-sessions" in deadline_output
