"""docker-compose.yml starts only with a real SECRET_KEY, in production mode.

Docker cannot run inside the test suite, so the compose file's environment is
interpolated here by the rules of the Compose specification (``${VAR}``,
``${VAR:-default}``, ``${VAR:?error}``, …) and the result is handed to
``manage.py check``, the first thing every app service's settings go through.
"""

from __future__ import annotations

import re

import pytest

from surveys import settings as project_settings
from tests.conftest import clean_env, run_manage
from tests.surveys.compose import compose

APP_SERVICES = ("migrate", "web", "worker", "beat")
REAL_KEY = "r" * 10 + "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKL"
# The key the compose file used to fall back on; it is public.
OLD_COMPOSE_KEY = "compose-local-only-key-change-me-0123456789abcdefghijklmnop"

_REFERENCE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[^}]*)\}|(?P<named>[A-Za-z_][A-Za-z0-9_]*))"
)
_BRACED = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>.*))?")


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


def service_environment(name: str, env: dict[str, str]) -> dict[str, str]:
    """A service's environment after interpolation with the shell's ``env``."""
    raw = compose()["services"][name]["environment"]
    return {key: interpolate(str(value), env) for key, value in raw.items()}


def test_compose_file_has_no_default_secret_key():
    for name in APP_SERVICES:
        with pytest.raises(ComposeRefused, match="SECRET_KEY"):
            service_environment(name, {})


def test_compose_refuses_an_empty_secret_key():
    with pytest.raises(ComposeRefused, match="SECRET_KEY"):
        service_environment("web", {"SECRET_KEY": ""})


@pytest.mark.parametrize("name", APP_SERVICES)
def test_compose_runs_production_settings_by_default(name):
    environment = service_environment(name, {"SECRET_KEY": REAL_KEY})
    assert environment["DENIABLE_PRODUCTION"] == "true"
    assert environment["DEBUG"] == "false"
    assert environment["SECRET_KEY"] == REAL_KEY


def _check(environment: dict[str, str], *args: str):
    return run_manage("check", *args, env=clean_env(**environment))


@pytest.mark.parametrize(
    "key", [project_settings.DEVELOPMENT_SECRET_KEY, OLD_COMPOSE_KEY]
)
def test_compose_services_refuse_to_start_with_a_published_key(key):
    run = _check(service_environment("web", {"SECRET_KEY": key}))
    assert run.returncode != 0
    assert "ImproperlyConfigured" in run.stderr
    assert "SECRET_KEY" in run.stderr


def test_compose_services_start_with_a_real_key_and_pass_the_deploy_check():
    run = _check(
        service_environment("web", {"SECRET_KEY": REAL_KEY}),
        "--deploy",
        "--fail-level",
        "WARNING",
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


def test_interpolation_follows_the_compose_rules():
    env = {"SET": "value", "EMPTY": ""}
    assert interpolate("${SET:-d}|${EMPTY:-d}|${UNSET:-d}", env) == "value|d|d"
    assert interpolate("${EMPTY-d}|${UNSET-d}|$$SET|$SET", env) == "|d|$SET|value"
    assert interpolate("${SET:+x}|${EMPTY:+x}|${EMPTY+x}", env) == "x||x"
    assert interpolate("${EMPTY?fine}", env) == ""
    with pytest.raises(ComposeRefused, match="needed"):
        interpolate("${EMPTY:?needed}", env)
