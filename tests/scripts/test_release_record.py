"""The release record (RELEASES.md) follows the device files, version by version.

``scripts/release-record`` writes the entry of the version in pyproject.toml;
these tests fail when a device file changes without its version's entry, and
show that a released entry is never rewritten while a development one follows
the files.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from surveys.collection import assets

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "release-record"
FIX = (
    "run: python3 scripts/release-record (a released version needs a new version first)"
)


def release_record() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("release_record", str(SCRIPT))
    spec = importlib.util.spec_from_loader("release_record", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


RECORD = release_record()


def project(tmp_path: Path, version: str) -> Path:
    """A copy of the device files, a pyproject.toml at ``version`` and an
    empty record."""
    for name in RECORD.DEVICE_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    (tmp_path / "pyproject.toml").write_text(f'[project]\nversion = "{version}"\n')
    (tmp_path / "RELEASES.md").write_text("# Release record\n\n")
    return tmp_path


def change(root: Path, name: str = "static/js/respond.js") -> None:
    with (root / name).open("a", encoding="utf-8") as file:
        file.write("// changed\n")


def test_the_record_has_this_versions_entry_with_the_files_fingerprints():
    assert RECORD.check() == [], FIX


def test_the_record_lists_every_file_a_respondents_browser_runs():
    served = {
        s.name: s.source
        for s in [
            *assets.device_scripts(),
            assets.verify_script(),
            *assets.independent_device(),
        ]
    }
    assert {Path(name).name for name in RECORD.DEVICE_FILES} == set(served)
    for name in RECORD.DEVICE_FILES:
        assert (ROOT / name).read_bytes() == served[Path(name).name], name


@pytest.mark.parametrize("name", RECORD.DEVICE_FILES)
def test_a_changed_device_file_fails_the_check(tmp_path, name):
    root = project(tmp_path, "1.0.0")
    RECORD.write(root)
    assert RECORD.check(root) == []
    change(root, name)
    assert [problem.split(":")[0] for problem in RECORD.check(root)] == [name]


def test_a_released_versions_entry_is_never_rewritten(tmp_path):
    root = project(tmp_path, "1.0.0")
    RECORD.write(root)
    before = (root / "RELEASES.md").read_text()
    change(root)
    with pytest.raises(SystemExit, match="new version"):
        RECORD.write(root)
    assert (root / "RELEASES.md").read_text() == before


def test_a_new_version_gets_its_own_entry_above_the_old_one(tmp_path):
    root = project(tmp_path, "1.0.0")
    RECORD.write(root)
    change(root)
    (root / "pyproject.toml").write_text('[project]\nversion = "1.1.0"\n')
    RECORD.write(root)
    entries = RECORD.entries((root / "RELEASES.md").read_text())
    assert list(entries) == ["1.1.0", "1.0.0"]
    assert RECORD.check(root) == []
    assert entries["1.0.0"] != entries["1.1.0"]


def test_a_development_versions_entry_follows_the_files_and_says_so(tmp_path):
    root = project(tmp_path, "1.1.0.dev0")
    RECORD.write(root)
    change(root)
    assert RECORD.check(root) != []
    RECORD.write(root)
    text = (root / "RELEASES.md").read_text()
    assert RECORD.check(root) == []
    assert list(RECORD.entries(text)) == ["1.1.0.dev0"]
    assert "Development version." in text
