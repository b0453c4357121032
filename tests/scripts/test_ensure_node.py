"""scripts/ensure-node runs ``npm ci`` only when node_modules/ is missing or
package-lock.json changed since its last install.

Each test copies the script into a small probe project whose one dependency is
a folder inside it (``file:``), so npm needs no registry.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

# Each test runs npm (a second or more apiece on a busy machine).
pytestmark = pytest.mark.slow


def _write_package(project: Path, version: str) -> None:
    (project / "probe").mkdir(exist_ok=True)
    (project / "probe" / "package.json").write_text(
        json.dumps({"name": "probe", "version": version})
    )
    (project / "package.json").write_text(
        json.dumps(
            {
                "name": "ensure-node-probe",
                "private": True,
                "devDependencies": {"probe": "file:probe"},
            }
        )
    )
    subprocess.run(
        ["npm", "install", "--package-lock-only", "--no-audit", "--no-fund"],
        cwd=project,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project holding scripts/ensure-node and a lock with one local package."""
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed (bash scripts/ensure-services installs it)")
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "ensure-node", tmp_path / "scripts")
    _write_package(tmp_path, "1.0.0")
    return tmp_path


def ensure(project: Path) -> str:
    """Run the project's scripts/ensure-node; what it printed."""
    done = subprocess.run(
        ["bash", "scripts/ensure-node"],
        cwd=project,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def test_first_run_installs_from_the_lock(project):
    assert "npm ci" in ensure(project)
    assert (project / "node_modules" / "probe" / "package.json").exists()


def test_second_run_with_the_same_lock_installs_nothing(project):
    ensure(project)
    assert ensure(project) == ""


def test_a_changed_lock_installs_again(project):
    ensure(project)
    _write_package(project, "2.0.0")
    assert "npm ci" in ensure(project)
    installed = project / "node_modules" / "probe" / "package.json"
    assert json.loads(installed.read_text())["version"] == "2.0.0"


def test_a_removed_node_modules_installs_again(project):
    ensure(project)
    shutil.rmtree(project / "node_modules")
    assert "npm ci" in ensure(project)
