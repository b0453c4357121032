"""scripts/ensure-venv installs only when pyproject.toml (or Python, or the extra)
changed, and two runs at once install once.

Each test copies the script into a small probe project whose in-tree build
backend (``probe_backend.py``) needs no package index and logs every build.
Creating a virtual environment is slow on a busy machine, so all but the
first-run test start from a copy of one fresh, never-installed-into venv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

HERE = Path(__file__).resolve().parent
PYPROJECT = """\
[build-system]
requires = []
build-backend = "probe_backend"
backend-path = ["."]

[project]
name = "ensure-venv-probe"
version = "1"
"""

# Each test runs pip into a fresh virtual environment: seconds apiece.
pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project directory holding scripts/ensure-venv and the probe backend."""
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "ensure-venv", tmp_path / "scripts")
    shutil.copy2(HERE / "probe_backend.py", tmp_path)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory) -> Path:
    """A virtual environment as ``python -m venv`` leaves it (nothing installed)."""
    venv = tmp_path_factory.mktemp("template") / ".venv"
    subprocess.run([offline_env()["PYTHON"], "-m", "venv", venv], check=True)
    return venv


@pytest.fixture
def project_with_venv(project: Path, fresh_venv: Path) -> Path:
    """The probe project with a fresh .venv in which nothing was installed yet."""
    shutil.copytree(fresh_venv, project / ".venv", symlinks=True)
    return project


def offline_env() -> dict[str, str]:
    """pip with no index at all: everything it installs must come from the probe."""
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    env.update(
        PYTHON=getattr(sys, "_base_executable", sys.executable),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS="",
        PIP_CONFIG_FILE=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def start(project: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        ["bash", "scripts/ensure-venv", *args],
        cwd=project,
        env=offline_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def ensure_venv(project: Path, *args: str) -> str:
    """Run the script to the end; it must succeed.  Returns its output."""
    run = start(project, *args)
    output, _ = run.communicate(timeout=300)
    assert run.returncode == 0, output
    return output


def builds(project: Path) -> int:
    log = project / "builds.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_first_run_creates_the_venv_and_installs_the_project(project):
    ensure_venv(project)
    assert builds(project) == 1
    python = project / ".venv" / "bin" / "python"
    shown = subprocess.run(
        [python, "-m", "pip", "show", "ensure-venv-probe"],
        capture_output=True,
        text=True,
        check=True,
        env=offline_env(),
    )
    assert "Version: 1" in shown.stdout


def test_second_run_with_nothing_changed_installs_nothing(project_with_venv):
    project = project_with_venv
    ensure_venv(project)
    output = ensure_venv(project)
    assert builds(project) == 1
    assert output == ""


def test_changed_pyproject_reinstalls(project_with_venv):
    project = project_with_venv
    ensure_venv(project)
    pyproject = project / "pyproject.toml"
    changed = pyproject.read_text().replace('version = "1"', 'version = "2"')
    pyproject.write_text(changed)
    output = ensure_venv(project)
    assert builds(project) == 2
    assert "installing . into .venv" in output


def test_an_extra_installs_once_and_covers_the_plain_install(project_with_venv):
    project = project_with_venv
    ensure_venv(project)
    ensure_venv(project, "dev")
    assert builds(project) == 2  # the extra was never installed before
    ensure_venv(project, "dev")
    ensure_venv(project)
    assert builds(project) == 2


def test_two_runs_at_once_install_once(project_with_venv):
    project = project_with_venv
    runs = [start(project), start(project)]
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert builds(project) == 1
    assert sum("installing" in output for output in outputs) == 1


def test_an_extra_name_with_shell_characters_is_refused_and_creates_nothing(project):
    run = start(project, "dev]; rm -rf .")
    output, _ = run.communicate(timeout=60)
    assert run.returncode == 2
    assert "is not an extra name" in output
    assert not (project / ".venv").exists()
    assert builds(project) == 0
