"""The shell blocks of docs/operations.md, so that tests run them as written."""

from __future__ import annotations

import re

from tests.conftest import ROOT, VENV_BIN

OPERATIONS = ROOT / "docs" / "operations.md"


def shell_blocks(heading: str) -> list[str]:
    """The ```sh blocks of the section titled ``heading`` (up to the next heading
    of the same or a higher level), with ``.venv/bin/`` pointing at this venv."""
    text = OPERATIONS.read_text()
    start = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.M)
    assert start, f"docs/operations.md has no section {heading!r}"
    level = len(start.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, start.end())
    section = text[start.end() : end.start() if end else len(text)]
    blocks = re.findall(r"^ *```sh\n(.*?)^ *```$", section, re.M | re.S)
    return [block.replace(".venv/bin/", f"{VENV_BIN}/") for block in blocks]
