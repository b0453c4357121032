"""``benchmarks/js_samples.py`` end to end, run the way ``run_all.py`` runs it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import ldp
from benchmarks.js_samples import COLUMNS
from tests.conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "js_samples.py"


def run(*args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_js_samples_prints_a_positive_rate_per_mechanism_runtime_and_way() -> None:
    result = run("--samples", "200")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    header = next(line.split() for line in lines if line.startswith("mechanism"))
    assert header == ["mechanism", "domain", *COLUMNS]
    rows = {
        fields[0]: dict(zip(COLUMNS, map(float, fields[2:]), strict=True))
        for fields in (line.split() for line in lines)
        if fields and (fields[0] in ldp.MECHANISMS or fields[0] == "baseline")
    }
    assert set(rows) == {*ldp.MECHANISMS, "baseline"}
    for name, row in rows.items():
        assert all(value > 0 for value in row.values()), (name, row)
    assert {rows["baseline"][c] for c in COLUMNS if c.endswith("ratio")} == {1}


def test_js_samples_exits_2_naming_node_when_node_is_missing(tmp_path) -> None:
    result = run("--samples", "200", env={"PATH": str(tmp_path)})
    assert result.returncode == 2
    assert result.stdout == ""
    assert "node (Node.js 20+) is not on PATH" in result.stderr


def test_js_samples_exits_2_naming_chromium_when_chromium_is_missing(
    tmp_path,
) -> None:
    node = shutil.which("node")
    assert node is not None, "node (Node.js 20+) is required for this test"
    (tmp_path / "node").symlink_to(node)
    result = run("--samples", "200", env={"PATH": str(tmp_path)})
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Chromium is not installed" in result.stderr
