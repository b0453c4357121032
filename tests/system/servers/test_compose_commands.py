"""The compose file's commands work outside Docker: web serves, beat schedules
under var/, and the worker's and beat's health checks answer as Docker asks."""

import json
import os
import signal
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from surveys.version import deniable_version
from tests.conftest import ROOT, clean_env, free_port, wait_for_http
from tests.surveys.compose import health_check, service_command


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
    health = json.loads(body)
    assert (health["database"], health["version"]) == ("ok", deniable_version())
    assert set(health["lag"]) == {"reports_untallied", "reports_not_in_results"}
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
        assert response.status == 200


def beat_env(redis_url: str) -> dict[str, str]:
    return clean_env(CELERY_BROKER_URL=redis_url)


def wait_for_output(started, text: str, timeout: float = 60) -> str:
    """The process's output once it contains ``text`` (the process must live)."""
    deadline = time.monotonic() + timeout
    while True:
        output = started.output()
        if text in output:
            return output
        assert started.process.poll() is None, output
        assert time.monotonic() < deadline, f"no {text!r} within {timeout}s:\n{output}"
        time.sleep(0.25)


def test_beat_command_starts_with_the_schedule_from_settings(
    start_process, redis_url, tmp_path
):
    command = service_command("beat")
    command[command.index("--schedule") + 1] = str(tmp_path / "beat-schedule")
    beat = start_process([*command, "--loglevel", "DEBUG"], beat_env(redis_url))
    output = wait_for_output(beat, "clear-expired-sessions", timeout=30)
    assert "beat: Starting" in output
    assert "reconcile-tallies" in output


def test_beat_command_writes_its_schedule_only_under_var(
    start_process, redis_url, tmp_path
):
    checkout = tmp_path / "checkout"
    (checkout / "var").mkdir(parents=True)
    env = beat_env(redis_url)
    env["PYTHONPATH"] = str(ROOT)
    beat = start_process(service_command("beat"), env, name="beat", cwd=checkout)
    deadline = time.monotonic() + 60
    while not any((checkout / "var").iterdir()):
        assert beat.process.poll() is None, beat.output()
        assert time.monotonic() < deadline, beat.output()
        time.sleep(0.25)
    beat.stop()  # beat syncs the schedule on the way out
    written = [path.relative_to(checkout) for path in checkout.rglob("*")]
    assert written
    for path in written:
        assert path == Path("var") or (
            path.parent == Path("var") and path.name.startswith("celerybeat-schedule")
        ), written


def passes_health_check(service: str, hostname: str, redis_url: str) -> bool:
    """Run the service's compose health check as Docker would; True if it passes."""
    run = subprocess.run(
        health_check(service),
        cwd=ROOT,
        env=beat_env(redis_url) | {"HOSTNAME": hostname},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return run.returncode == 0


def wait_until_healthy(started, service: str, hostname: str, redis_url: str) -> None:
    deadline = time.monotonic() + 90
    while not passes_health_check(service, hostname, redis_url):
        assert started.process.poll() is None, started.output()
        assert time.monotonic() < deadline, started.output()
        time.sleep(1)


def test_beat_health_check_passes_while_beat_runs_and_fails_while_it_is_frozen(
    start_process, redis_url, tmp_path
):
    hostname = f"beat-test-{uuid.uuid4().hex[:12]}"  # the container's host name
    command = service_command("beat")
    command[command.index("--schedule") + 1] = str(tmp_path / "beat-schedule")
    beat = start_process(
        [*command, "--hostname", f"celerybeat@{hostname}"], beat_env(redis_url)
    )
    wait_until_healthy(beat, "beat", hostname, redis_url)
    os.killpg(beat.pid, signal.SIGSTOP)
    try:
        assert not passes_health_check("beat", hostname, redis_url)
    finally:
        os.killpg(beat.pid, signal.SIGCONT)
    wait_until_healthy(beat, "beat", hostname, redis_url)


def test_beat_health_check_fails_for_another_host_name(
    start_process, redis_url, tmp_path
):
    hostname = f"beat-test-{uuid.uuid4().hex[:12]}"
    command = service_command("beat")
    command[command.index("--schedule") + 1] = str(tmp_path / "beat-schedule")
    beat = start_process(
        [*command, "--hostname", f"celerybeat@{hostname}"], beat_env(redis_url)
    )
    wait_until_healthy(beat, "beat", hostname, redis_url)
    assert not passes_health_check("beat", f"{hostname}-other", redis_url)


@pytest.mark.django_db
def test_worker_health_check_passes_while_the_worker_runs(
    start_process, redis_url, test_database_url
):
    hostname = f"worker-test-{uuid.uuid4().hex[:12]}"
    queue = f"test-{uuid.uuid4().hex}"  # so it takes no task of anyone else
    env = beat_env(redis_url) | {"DATABASE_URL": test_database_url}
    worker = start_process(
        [
            *service_command("worker"),
            "--concurrency",
            "1",
            "--hostname",
            f"celery@{hostname}",
            "--queues",
            queue,
        ],
        env,
        name="worker",
    )
    wait_until_healthy(worker, "worker", hostname, redis_url)


@pytest.mark.django_db
def test_two_web_instances_on_one_machine_share_no_control_socket(
    start_process, test_database_url, tmp_path
):
    ports = [free_port(), free_port()]
    for port in ports:
        env = clean_env(
            DATABASE_URL=test_database_url,
            GUNICORN_BIND=f"127.0.0.1:{port}",
            WEB_CONCURRENCY="1",
            HOME=str(tmp_path),  # gunicorn's default control socket lives here
        )
        env.pop("XDG_RUNTIME_DIR", None)
        env.pop("GUNICORN_CONTROL_SOCKET", None)
        start_process(service_command("web"), env, name="gunicorn")
    for port in ports:
        wait_for_http(f"http://127.0.0.1:{port}/healthz")
    assert not (tmp_path / ".gunicorn").exists()
