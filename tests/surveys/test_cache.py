"""The one cache: Django's cache framework, Redis when ``CACHE_URL`` names it."""

from __future__ import annotations

import pytest

from tests.conftest import clean_env, run_manage

BACKEND = (
    "from django.core.cache import caches; c = caches['default'];"
    " print(type(c).__module__, type(c).__name__)"
)


@pytest.mark.parametrize(
    ("cache_url", "backend"),
    [
        ("redis", "django.core.cache.backends.redis RedisCache"),
        ("", "django.core.cache.backends.locmem LocMemCache"),
    ],
    ids=["redis", "development"],
)
def test_cache_url_selects_djangos_own_backend(redis_url, cache_url, backend):
    url = redis_url if cache_url == "redis" else ""
    run = run_manage("shell", "-c", BACKEND, env=clean_env(CACHE_URL=url))
    assert run.stdout.strip().splitlines()[-1] == backend
