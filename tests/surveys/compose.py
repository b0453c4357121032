"""Reads docker-compose.yml so tests run the same commands, environment and volumes.

Docker cannot run inside the test suite, so what ``docker compose`` does with
the file before starting anything is done here by the rules of the Compose
specification: variables are interpolated (``${VAR}``, ``${VAR:-default}``,
``${VAR:?error}``, …) from the variables of ``.env``, and a service's
environment is its ``env_file`` lines overridden by its ``environment``.
"""

from __future__ import annotations

import re
import shlex
from functools import cache
from pathlib import PurePosixPath
from typing import Any

import yaml

from tests.conftest import ROOT

ENV_FILE = ".env"  # what env_file names unless DENIABLE_ENV_FILE says otherwise

_REFERENCE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[^}]*)\}|(?P<named>[A-Za-z_][A-Za-z0-9_]*))"
)
_BRACED = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>.*))?")


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


class ComposeRefused(Exception):
    """What ``docker compose`` reports for a required variable that is missing."""


def interpolate(value: str, env: dict[str, str]) -> str:
    """Substitute variables in one compose value as ``docker compose`` does."""

    def substitute(match: re.Match[str]) -> str:
        if match["escaped"]:
            return "$"
        if match["named"]:
            return env.get(match["named"], "")
        parts = _BRACED.fullmatch(match["braced"])
        assert parts, f"cannot read ${{{match['braced']}}}"
        name, op, arg = parts["name"], parts["op"], parts["arg"]
        present = name in env
        empty = not env.get(name)
        missing = empty if op and op.startswith(":") else not present
        if op in (":-", "-"):
            return arg if missing else env[name]
        if op in (":?", "?"):
            if missing:
                raise ComposeRefused(
                    f"required variable {name} is missing a value: {arg}"
                )
            return env[name]
        if op in (":+", "+"):
            return "" if missing else arg
        return env.get(name, "")

    return _REFERENCE.sub(substitute, value)


def resolved(variables: dict[str, str]) -> Any:
    """The whole file after interpolation with ``variables`` (the shell and
    ``.env``), as ``docker compose config`` sees it before validating."""

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return interpolate(node, variables)
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(compose())


def env_files(name: str, variables: dict[str, str]) -> list[str]:
    """The paths a service's ``env_file`` names, after interpolation."""
    listed = resolved(variables)["services"][name].get("env_file", [])
    if isinstance(listed, str):
        listed = [listed]
    return [item if isinstance(item, str) else item["path"] for item in listed]


def service_environment(name: str, dotenv: dict[str, str]) -> dict[str, str]:
    """A service's environment when ``.env`` holds ``dotenv`` (and the shell
    sets nothing): ``.env``'s lines if its ``env_file`` names ``.env``,
    overridden by its ``environment`` interpolated from them."""
    environment = {}
    if ENV_FILE in env_files(name, dotenv):
        environment.update(dotenv)
    raw = compose()["services"][name].get("environment", {})
    environment.update(
        {key: interpolate(str(value), dotenv) for key, value in raw.items()}
    )
    return environment


def named_volumes(name: str) -> dict[str, PurePosixPath]:
    """A service's named volumes: volume name -> where it is mounted."""
    mounts = {}
    for item in compose()["services"][name].get("volumes", []):
        source, target = str(item).split(":")[:2]
        if not source.startswith((".", "/", "~")):
            mounts[source] = PurePosixPath(target)
    return mounts


def image_workdir() -> PurePosixPath:
    """The working directory of the app image (the Dockerfile's WORKDIR)."""
    found = re.search(r"^WORKDIR\s+(\S+)", (ROOT / "Dockerfile").read_text(), re.M)
    assert found, "the Dockerfile sets no WORKDIR"
    return PurePosixPath(found.group(1))


def image_build_step(program: str) -> tuple[dict[str, str], list[str]]:
    """The Dockerfile's ``RUN`` line that runs ``program`` (e.g. ``collectstatic``):
    the variables it sets and its command."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if line.startswith("RUN ") and program in line:
            words = shlex.split(line[len("RUN ") :])
            variables = {}
            while "=" in words[0]:
                name, _, value = words.pop(0).partition("=")
                variables[name] = value
            return variables, words
    raise AssertionError(f"the Dockerfile runs no {program}")
