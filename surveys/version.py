"""The installed Deniable version.

One source of truth: ``version`` in pyproject.toml, which pip records in the
installed package's metadata (docs/operations.md, "Releases").
"""

from functools import cache
from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "deniable"


@cache
def deniable_version() -> str:
    """The installed version, e.g. ``0.2.0.dev0`` ("unknown" if never installed)."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"
