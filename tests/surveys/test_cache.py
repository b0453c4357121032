"""The shared cache's backend: Django's Redis cache keeping one client."""

from __future__ import annotations

import uuid

import pytest
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

from surveys.cache import RedisCache
from tests.conftest import clean_env, run_manage


@pytest.fixture
def backend(redis_url) -> RedisCache:
    return RedisCache(redis_url, {"KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}"})


def test_the_backend_builds_one_client_and_keeps_it(backend):
    backend.set("a", 1)
    client = backend._cache.get_client()
    backend.get("a")
    backend.get_many(["a", "b"])
    assert backend._cache.get_client() is client
    assert backend._cache.get_client(write=True) is client  # one server: one pool


def test_the_backend_stores_and_reads_as_djangos_does(backend, redis_url):
    django_backend = DjangoRedisCache(redis_url, {"KEY_PREFIX": backend.key_prefix})
    backend.set("answer", {"n": 42, "text": "ünïcode"}, timeout=30)
    assert django_backend.get("answer") == {"n": 42, "text": "ünïcode"}
    django_backend.set("other", [1, 2])
    assert backend.get_many(["answer", "other", "missing"]) == {
        "answer": {"n": 42, "text": "ünïcode"},
        "other": [1, 2],
    }
    assert backend.add("answer", 0) is False
    assert backend.add("counter", 1) is True
    assert backend.incr("counter") == 2
    backend.delete("answer")
    assert backend.get("answer") is None


def test_a_redis_cache_url_selects_the_client_keeping_backend(redis_url):
    run = run_manage(
        "shell",
        "-c",
        "from django.core.cache import caches; c = caches['default'];"
        " print(type(c).__module__, type(c).__name__)",
        env=clean_env(CACHE_URL=redis_url),
    )
    assert run.stdout.strip().splitlines()[-1] == "surveys.cache RedisCache"
