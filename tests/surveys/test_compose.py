"""docker-compose.yml describes the stack (its commands run in tests/system/servers)."""

import shlex
import subprocess
from pathlib import PurePosixPath

import pytest

from tests.conftest import ROOT
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


@pytest.mark.parametrize("name", ["postgres", "redis", "web", "worker", "beat"])
def test_long_running_services_have_healthchecks(name):
    assert compose()["services"][name]["healthcheck"]["test"]


def readme_commands_without_docker() -> list[list[str]]:
    """Every ``.venv/bin/...`` command of the README's "Without Docker" section."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Without Docker") :]
    section = section[: section.index("\n## ")]
    return [
        shlex.split(line.strip(), comments=True)
        for line in section.splitlines()
        if line.strip().startswith(".venv/bin/")
    ]


@pytest.mark.parametrize("name", APP_SERVICES)
def test_readme_runs_the_compose_command_of_each_app_service_without_docker(name):
    program, *arguments = service_command(name)
    assert [f".venv/bin/{program}", *arguments] in readme_commands_without_docker()


def test_web_port_on_the_host_is_chosen_by_port_as_for_command_1():
    assert compose()["services"]["web"]["ports"] == ["${PORT:-8000}:8000"]


def test_migrate_waits_for_a_healthy_postgres():
    depends_on = compose()["services"]["migrate"]["depends_on"]
    assert depends_on["postgres"]["condition"] == "service_healthy"


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
def test_app_service_starts_only_after_migrations_and_a_healthy_redis(name):
    depends_on = compose()["services"][name]["depends_on"]
    assert depends_on["migrate"]["condition"] == "service_completed_successfully"
    assert depends_on["redis"]["condition"] == "service_healthy"


def test_beat_keeps_its_schedule_in_var_relative_to_the_working_directory():
    command = service_command("beat")
    schedule = PurePosixPath(command[command.index("--schedule") + 1])
    assert not schedule.is_absolute()
    assert schedule.parent == PurePosixPath("var")


def test_var_is_in_every_checkout_with_its_contents_ignored():
    tracked = subprocess.run(
        ["git", "ls-files", "--error-unmatch", "var/.gitignore"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    assert tracked.returncode == 0, tracked.stderr
    assert git_ignores("var/celerybeat-schedule.db")


@pytest.mark.parametrize("suffix", ["", ".db", ".dat", ".dir", ".bak"])
def test_a_beat_schedule_in_the_repository_root_is_ignored(suffix):
    assert git_ignores(f"celerybeat-schedule{suffix}")


def git_ignores(path: str) -> bool:
    checked = subprocess.run(
        ["git", "check-ignore", "--quiet", "--no-index", path],
        cwd=ROOT,
        check=False,
    )
    return checked.returncode == 0
