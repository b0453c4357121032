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


def health_check(name: str) -> list[str]:
    """The argv Docker runs for a service's health check (CMD or CMD-SHELL form)."""
    test = compose()["services"][name]["healthcheck"]["test"]
    kind, *rest = test
    if kind == "CMD":
        return list(rest)
    assert kind == "CMD-SHELL", f"{name}: unknown health check form {kind!r}"
    # Compose reads "$$" as a literal "$", left for the shell to expand.
    return ["sh", "-c", rest[0].replace("$$", "$")]
