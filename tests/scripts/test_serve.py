"""README command 1 (scripts/serve): the demo on the port PORT names."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import ROOT, clean_env


@pytest.mark.parametrize("port", ["abc", "0", "65536", "80 81", "-1"])
def test_serve_refuses_a_port_that_is_not_a_port_number(port):
    run = subprocess.run(
        ["bash", "scripts/serve"],
        cwd=ROOT,
        env=clean_env(PORT=port),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2
    assert f"serve: PORT is '{port}'; allowed: a TCP port number" in run.stderr
    assert run.stdout == ""
