"""Reads the service commands out of docker-compose.yml so tests run the same ones."""

from functools import cache

import yaml

from tests.conftest import ROOT


@cache
def compose() -> dict:
    with (ROOT / "docker-compose.yml").open() as handle:
        return yaml.safe_load(handle)


def service_command(name: str) -> list[str]:
    """The exec-form command of a compose service."""
    command = compose()["services"][name]["command"]
    assert isinstance(command, list), f"{name}: use the exec form for its command"
    return list(command)
