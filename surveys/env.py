"""Typed readers for configuration from environment variables.

Each reader fails loudly (ImproperlyConfigured) on a value it cannot parse, so a
typo in a deployment never silently falls back to a development default.
"""

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """Return the variable's value, or ``default`` when it is unset."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    """Parse true/false, yes/no, on/off, 1/0 (case-insensitive)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean; use one of true/false, yes/no, on/off, 1/0."
    )


def env_int(name: str, default: int) -> int:
    """Parse a base-10 integer."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None


def env_list(name: str, default: str = "") -> list[str]:
    """Parse a comma-separated list, dropping blanks."""
    raw = os.environ.get(name, default)
    return [item.strip() for item in raw.split(",") if item.strip()]
