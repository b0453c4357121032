"""The one cache: Django's cache framework, Redis when ``CACHE_URL`` names it."""

from __future__ import annotations

import pytest

from tests.conftest import project_settings


@pytest.mark.parametrize(
    ("cache_url", "backend"),
    [
        ("redis", "django.core.cache.backends.redis.RedisCache"),
        ("", "django.core.cache.backends.locmem.LocMemCache"),
    ],
    ids=["redis", "development"],
)
def test_cache_url_selects_djangos_own_backend(redis_url, cache_url, backend):
    url = redis_url if cache_url == "redis" else ""
    caches = project_settings(CACHE_URL=url)["CACHES"]
    assert caches["default"]["BACKEND"] == backend
