"""The maths package imports with Django (and Celery) absent."""

import subprocess
import sys

from tests.conftest import ROOT

BLOCK_FRAMEWORKS = """
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"django", "celery", "surveys"}:
            raise ImportError(f"ldp must not import {name}")
        return None

sys.meta_path.insert(0, Block())
import ldp, pkgutil, importlib
for module in pkgutil.walk_packages(ldp.__path__, "ldp."):
    importlib.import_module(module.name)
print("ok")
"""


def test_ldp_and_all_its_modules_import_without_django():
    run = subprocess.run(
        [sys.executable, "-c", BLOCK_FRAMEWORKS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"
