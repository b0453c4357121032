"""Where several processes serve, a per-process cache is refused at start-up."""

from __future__ import annotations

import pytest
from django.core import checks

from surveys.operations.checks import CHECK_ID, unshared_cache_errors
from tests.conftest import clean_env, redis_cache, run_manage

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
PRODUCTION = {
    "DENIABLE_PRODUCTION": "true",
    "SECRET_KEY": "p" * 20 + "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGH",
    "ALLOWED_HOSTS": "surveys.example.org",
}


@pytest.mark.parametrize(
    ("web_processes", "production", "refused"),
    [(1, False, False), (2, False, True), (3, False, True), (1, True, True)],
)
def test_a_per_process_cache_is_refused_when_several_processes_serve(
    settings, web_processes, production, refused
):
    settings.CACHES = LOCMEM
    settings.PRODUCTION = production
    errors = unshared_cache_errors(web_processes=web_processes)
    assert [error.id for error in errors] == ([CHECK_ID] if refused else [])


@pytest.mark.parametrize("web_processes", [1, 3])
def test_a_shared_redis_cache_passes_with_any_number_of_processes(
    settings, redis_url, web_processes
):
    settings.CACHES = redis_cache(redis_url, prefix="checks")
    settings.PRODUCTION = True
    assert unshared_cache_errors(web_processes=web_processes) == []


def test_the_refusal_names_the_setting_to_change(settings):
    settings.CACHES = LOCMEM
    (error,) = unshared_cache_errors(web_processes=3)
    assert error.level == checks.ERROR
    assert "3 web processes" in error.msg
    assert "CACHE_URL=redis://" in error.hint
    assert "WEB_CONCURRENCY=1" in error.hint


def test_the_check_is_one_of_djangos_system_checks(settings):
    settings.CACHES = LOCMEM
    settings.PRODUCTION = True
    found = checks.run_checks(tags=[checks.Tags.caches])
    assert CHECK_ID in [message.id for message in found]


@pytest.mark.slow  # Django's system checks need a process of their own
def test_manage_py_refuses_production_without_a_shared_cache():
    run = run_manage("check", env=clean_env(**PRODUCTION, CACHE_URL=""))
    assert run.returncode != 0
    assert CHECK_ID in run.stderr
    assert "CACHE_URL" in run.stderr


@pytest.mark.slow  # Django's system checks need a process of their own
def test_the_development_default_keeps_its_per_process_cache():
    run = run_manage("check", env=clean_env(CACHE_URL=""))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout
