"""scripts/compose-journey needs Docker's Compose plugin and says so without it."""

from __future__ import annotations

import shutil
import subprocess

from tests.conftest import ROOT


def test_compose_journey_refuses_clearly_without_docker_compose(tmp_path):
    # A PATH with only what the script needs before it asks for Docker.
    for program in ("bash", "dirname"):
        (tmp_path / program).symlink_to(shutil.which(program))
    run = subprocess.run(
        [str(tmp_path / "bash"), "scripts/compose-journey"],
        cwd=ROOT,
        env={"PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2
    assert "compose-journey: needs Docker with the Compose plugin" in run.stderr
    assert run.stdout == ""
