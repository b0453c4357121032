"""The compose file's ``web`` and ``beat`` commands work outside Docker."""

import time
import urllib.request

import pytest

from tests.conftest import clean_env, free_port, wait_for_http
from tests.surveys.compose import service_command


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

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        deadline_output = beat.output()
        if "clear-expired-sessions" in deadline_output:
            break
        time.sleep(0.25)
    assert beat.process.poll() is None, deadline_output
    assert "beat: Starting" in deadline_output
    assert "clear-expired-sessions" in deadline_output
