"""The README publishes, for each release, the hashes of what respondents run."""

from __future__ import annotations

import re
from pathlib import Path

from surveys.collection import assets

ROOT = Path(__file__).resolve().parents[3]
ROW = re.compile(r"^\| `([^`]+)` \| `(sha384-[A-Za-z0-9+/=]+)` \|$", re.MULTILINE)
FIX = (
    "Update the README's 'Published fingerprints' table: "
    "openssl dgst -sha384 -binary FILE | openssl base64 -A"
)


def published() -> dict[str, str]:
    return dict(ROW.findall((ROOT / "README.md").read_text(encoding="utf-8")))


def test_readme_publishes_a_hash_for_every_module_respondent_pages_load():
    assert set(published()) == {
        "ldp/js/randomizer.js",
        "ldp/js/wording.js",
        "static/js/respond.js",
    }


def test_readme_hashes_are_those_of_the_files_in_this_release():
    scripts = {script.name: script for script in assets.device_scripts()}
    for path, digest in published().items():
        served = scripts[Path(path).name]
        assert served.source == (ROOT / path).read_bytes(), path
        assert digest == served.integrity, f"{path}: {FIX}"
