"""docker-compose.yml starts only with a real SECRET_KEY, in production mode.

Docker cannot run inside the test suite, so the compose file's environment is
interpolated here by the rules of the Compose specification
(``tests/surveys/compose.py``) and the result is handed to the project's
settings, which every app service loads first (to ``manage.py check`` for the
deploy check).
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from surveys.settings import DEVELOPMENT_SECRET_KEY
from tests.conftest import clean_env, project_settings, run_manage
from tests.surveys.compose import ComposeRefused, interpolate, service_environment

APP_SERVICES = ("migrate", "web", "worker", "beat")
REAL_KEY = "r" * 10 + "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKL"
# The key the compose file used to fall back on; it is public.
OLD_COMPOSE_KEY = "compose-local-only-key-change-me-0123456789abcdefghijklmnop"


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


@pytest.mark.parametrize("key", [DEVELOPMENT_SECRET_KEY, OLD_COMPOSE_KEY])
def test_compose_services_refuse_to_start_with_a_published_key(key):
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        project_settings(**service_environment("web", {"SECRET_KEY": key}))


@pytest.mark.slow  # Django's deploy checks need a process of their own
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
