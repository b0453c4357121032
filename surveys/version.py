"""The installed Deniable version.

One source of truth: ``version`` in pyproject.toml, which pip records in the
installed package's metadata (docs/operations.md, "Releases").
"""

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "deniable"


def _installed_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


# Read once when the process starts: the installed package does not change
# under a running process (an upgrade restarts it).
VERSION = _installed_version()


def deniable_version() -> str:
    """The installed version, e.g. ``0.2.0.dev0`` ("unknown" if never installed)."""
    return VERSION
