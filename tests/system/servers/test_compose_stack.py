"""The compose stack end to end, without Docker: every app service's command and
environment, read from docker-compose.yml, run as processes on the test's
PostgreSQL and a Redis of the test's own.

Each process gets only what its container would: the compose environment (the
``env_file`` lines of a ``.env`` and the interpolated ``environment``), PATH and
HOME, and the image's static files (the Dockerfile's collectstatic step, run
once into a folder of the test's own: ``STATIC_ROOT``).  Paths inside the image
are given places on this machine: a named volume is one folder shared by every
service that mounts it, anything else under the image's working directory a
folder of that service alone, so a file one service writes is seen by another
only through a volume they both mount.
Then tests/compose_journey.py: respondents answer, the dashboard shows them,
an export file is asked for, written by the worker and downloaded through web.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from surveys.analysis.exports import raw_reports
from surveys.authoring.models import Survey
from tests.compose_journey import Researcher, Setup, journey, set_up
from tests.conftest import ROOT, VENV_BIN, free_port, wait_for_http
from tests.surveys.compose import (
    image_build_step,
    image_workdir,
    named_volumes,
    service_command,
    service_environment,
)

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_KEY = "c" * 10 + "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKL"
# What the host keeps of its own environment in a container: nothing of Deniable's.
HOST_VARIABLES = ("HOME", "LANG", "LC_ALL", "TMPDIR")


class Containers:
    """Where each service's paths inside the image are on this machine."""

    def __init__(self, root: Path):
        self.root = root
        self.workdir = image_workdir()
        self.static_root = root / "image" / "staticfiles"

    def build_image(self) -> None:
        """The image's build step: static files collected (the Dockerfile's
        ``RUN ... collectstatic``) into a folder every service reads."""
        variables, command = image_build_step("collectstatic")
        env = self._host() | variables | {"STATIC_ROOT": str(self.static_root)}
        built = subprocess.run(
            [str(VENV_BIN / "python"), *command[1:]],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert built.returncode == 0, built.stdout + built.stderr

    def host_path(self, service: str, inside: PurePosixPath) -> Path:
        for volume, target in named_volumes(service).items():
            if inside == target or target in inside.parents:
                return self._made(self.root / "volumes" / volume, inside, target)
        return self._made(self.root / "containers" / service, inside, self.workdir)

    def _made(self, base: Path, inside: PurePosixPath, under: PurePosixPath) -> Path:
        path = base / inside.relative_to(under)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def environment(self, service: str, dotenv: dict[str, str]) -> dict[str, str]:
        """The service's container environment, its image paths mapped here."""
        env = self._host() | {"STATIC_ROOT": str(self.static_root)}
        for name, value in service_environment(service, dotenv).items():
            inside = PurePosixPath(value)
            if inside.is_absolute() and self.workdir in inside.parents:
                value = str(self.host_path(service, inside))
            env[name] = value
        return env

    def _host(self) -> dict[str, str]:
        env = {name: os.environ[name] for name in HOST_VARIABLES if name in os.environ}
        env["PATH"] = f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
        return env

    def command(self, service: str) -> list[str]:
        """The service's command, relative paths under its working directory."""
        command = service_command(service)
        if "--schedule" in command:  # beat's schedule file, relative to WORKDIR
            at = command.index("--schedule") + 1
            inside = self.workdir / command[at]
            folder = self.host_path(service, inside.parent)
            command[at] = str(folder / inside.name)
        return command


@pytest.fixture
def stack(start_process, own_redis, test_database_url, tmp_path):
    """web, worker and beat from docker-compose.yml, with the test's services
    set in ``.env`` as a deployment would point them elsewhere; after the
    one-shot ``migrate`` ran as compose runs it first."""
    port = free_port()
    dotenv = {
        "SECRET_KEY": SECRET_KEY,
        "SECURE_SSL_REDIRECT": "false",  # plain HTTP, as the README's trial
        "DATABASE_URL": test_database_url,
        "CELERY_BROKER_URL": own_redis.url(0),
        "CELERY_RESULT_BACKEND": own_redis.url(1),
        "CACHE_URL": own_redis.url(2),
        "GUNICORN_BIND": f"127.0.0.1:{port}",  # what the port mapping does
        "WEB_CONCURRENCY": "2",
        "SNAPSHOT_MIN_NEW_SUBMISSIONS": "1",
    }
    containers = Containers(tmp_path / "compose")
    containers.build_image()
    migrated = subprocess.run(
        containers.command("migrate"),
        cwd=ROOT,
        env=containers.environment("migrate", dotenv),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    started = {
        service: start_process(
            containers.command(service),
            containers.environment(service, dotenv),
            name=service,
        )
        for service in ("web", "worker", "beat")
    }
    wait_for_http(f"http://127.0.0.1:{port}/healthz", timeout=90)

    def manage(args: list[str], variables: dict[str, str]) -> str:
        """``docker compose run --rm web python manage.py ARGS``."""
        ran = subprocess.run(
            [str(VENV_BIN / "python"), "manage.py", *args],
            cwd=ROOT,
            env=containers.environment("web", dotenv) | variables,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        return ran.stdout

    return port, manage, started, containers


def test_compose_services_answer_show_and_export_a_survey(stack):
    port, manage, started, containers = stack
    researcher = Researcher("journey")
    setup: Setup = set_up(manage, researcher)
    try:
        download = journey(port, setup, researcher)
    except AssertionError as failure:
        logs = {name: process.output()[-3000:] for name, process in started.items()}
        raise AssertionError(f"{failure}\n{logs}") from failure
    survey = Survey.objects.get(pk=setup.survey)
    assert download.body == "".join(raw_reports.reports_csv(survey)).encode()
    written = list((containers.root / "volumes" / "exports").rglob("*.csv"))
    assert written, "the worker wrote no file to the shared exports volume"
    assert "run_analysis_job" in started["worker"].output()
