"""Constants read out of the device's own shipped modules (``ldp/js``).

What the respondent's device enforces and how it labels protection live in
its hashed modules; the server's copies of those figures are read from the
same files at import, so there is one source and nothing to keep in step.
"""

from __future__ import annotations

import re
from pathlib import Path

DEVICE_DIR = Path(__file__).resolve().parent.parent / "js"
"""Where the device's modules are shipped (package data of ``ldp``)."""


def device_source(name: str) -> str:
    """The text of the shipped device module ``name`` ("randomizer.js")."""
    return (DEVICE_DIR / name).read_text(encoding="utf-8")


def shipped_integer(module: str, name: str) -> int:
    """``export const NAME = <integer>;`` of a shipped device module.

    Raises
    ------
    LookupError
        When the module declares no such plain integer constant.
    """
    match = re.search(
        rf"^export const {name} = (\d+);$", device_source(module), re.MULTILINE
    )
    if match is None:
        raise LookupError(f"{module} declares no integer constant {name}")
    return int(match.group(1))


def shipped_limits(module: str, name: str) -> tuple[tuple[str, int], ...]:
    """A ``const NAME = [["key", <integer>n], ...];`` table of a device module,
    in its order (the device's strength limits: label key, largest ratio)."""
    block = re.search(
        rf"^const {name} = \[(.*?)^\];$", device_source(module), re.MULTILINE | re.S
    )
    if block is None:
        raise LookupError(f"{module} declares no table {name}")
    rows = re.findall(r'\[\s*"(\w+)"\s*,\s*(\d+)n\s*\]', block.group(1))
    if not rows:
        raise LookupError(f"{module}'s table {name} has no rows")
    return tuple((key, int(limit)) for key, limit in rows)
