"""docker-compose.yml describes the stack (its commands run in tests/system/servers)."""

import copy
import json
import shlex
import subprocess
from pathlib import PurePosixPath

import jsonschema
import pytest

from tests.conftest import ROOT
from tests.surveys.compose import (
    compose,
    env_files,
    image_workdir,
    named_volumes,
    resolved,
    service_command,
    service_environment,
)

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


# --- the file itself, as `docker compose config` checks it -----------------------
SCHEMA = ROOT / "tests" / "compose_spec" / "compose-spec.json"
REAL_KEY = "v" * 10 + "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKL"


def compose_errors(document: dict) -> list[str]:
    """What the Compose Specification's schema finds wrong with ``document``."""
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]


def test_compose_file_is_valid_under_the_compose_specification():
    assert compose_errors(resolved({"SECRET_KEY": REAL_KEY})) == []


def test_the_schema_catches_a_misspelt_service_key():
    broken = copy.deepcopy(resolved({"SECRET_KEY": REAL_KEY}))
    broken["services"]["web"]["comand"] = broken["services"]["web"].pop("command")
    assert any("comand" in error for error in compose_errors(broken))


def test_every_named_volume_a_service_mounts_is_declared():
    declared = set(compose()["volumes"])
    for name in compose()["services"]:
        assert set(named_volumes(name)) <= declared, name


# --- settings from .env -------------------------------------------------------------
@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_read_every_line_of_dot_env(name):
    assert env_files(name, {"SECRET_KEY": REAL_KEY}) == [".env"]
    listed = compose()["services"][name]["env_file"]
    assert [item["required"] for item in listed] == [False]  # .env is optional


@pytest.mark.parametrize("name", APP_SERVICES)
def test_a_setting_the_compose_file_does_not_name_reaches_every_app_service(name):
    dotenv = {"SECRET_KEY": REAL_KEY, "EMAIL_URL": "smtp://mail.example.org:25"}
    assert service_environment(name, dotenv)["EMAIL_URL"] == dotenv["EMAIL_URL"]


WIRED = sorted(set(compose()["services"]["web"]["environment"]) - {"EXPORT_ROOT"})


@pytest.mark.parametrize("variable", WIRED)
def test_dot_env_overrides_each_setting_the_compose_file_wires(variable):
    dotenv = {"SECRET_KEY": REAL_KEY, variable: "from-dot-env"}
    for name in APP_SERVICES:
        assert service_environment(name, dotenv)[variable] == "from-dot-env"


def test_another_env_file_can_be_named_for_a_stack_of_its_own():
    variables = {"SECRET_KEY": REAL_KEY, "DENIABLE_ENV_FILE": "journey/stack.env"}
    assert env_files("web", variables) == ["journey/stack.env"]


# --- the export files -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["web", "worker"])
def test_web_and_worker_mount_one_exports_volume_where_export_root_points(name):
    export_root = service_environment(name, {"SECRET_KEY": REAL_KEY})["EXPORT_ROOT"]
    assert named_volumes(name) == {"exports": PurePosixPath(export_root)}


def test_the_image_makes_the_export_folder_for_the_app_user():
    dockerfile = (ROOT / "Dockerfile").read_text()
    export_root = service_environment("web", {"SECRET_KEY": REAL_KEY})["EXPORT_ROOT"]
    relative = PurePosixPath(export_root).relative_to(image_workdir())
    assert f"mkdir -p {relative}" in dockerfile
    assert "chown -R deniable:deniable var" in dockerfile
