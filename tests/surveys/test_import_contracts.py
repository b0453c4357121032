"""The import-linter contracts in pyproject.toml hold (docs/architecture.md).

Apps depend downwards only (analysis → collection → authoring → accounts,
api_tokens), apps never import the project's settings or URLconf, and ``ldp``
imports neither Django, Celery, Redis nor ``surveys``.
"""

from __future__ import annotations

import subprocess

from tests.conftest import ROOT, VENV_BIN


def test_import_contracts_are_kept():
    run = subprocess.run(
        [str(VENV_BIN / "lint-imports"), "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout
