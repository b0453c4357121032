"""Sessions read from the shared cache (Redis) and kept in the database."""

from __future__ import annotations

import socket

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.accounts.session_store import SessionStore
from tests.conftest import project_settings, redis_cache

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def cached_sessions(settings, redis_url):
    settings.CACHES = redis_cache(redis_url, prefix="sessions")
    settings.SESSION_ENGINE = "surveys.accounts.session_store"
    return settings


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", password="a long passphrase 1")


def signed_in_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def survey_list(client: Client) -> int:
    return client.get(reverse("authoring:survey_list")).status_code


def session_queries(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "django_session" in q["sql"]]


def test_a_signed_in_request_reads_its_session_from_the_cache(cached_sessions, ada):
    client = signed_in_client(ada)
    assert survey_list(client) == 200
    with CaptureQueriesContext(connection) as queries:
        assert survey_list(client) == 200
    assert session_queries(queries) == []


def test_the_database_stays_the_source_of_truth(cached_sessions, ada):
    client = signed_in_client(ada)
    key = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    cache.delete(SessionStore.cache_key_prefix + key)  # e.g. evicted
    with CaptureQueriesContext(connection) as queries:
        assert survey_list(client) == 200
    assert len(session_queries(queries)) == 1
    assert cache.get(SessionStore.cache_key_prefix + key) is not None


def test_signing_out_ends_the_session_for_a_copied_cookie(cached_sessions, ada):
    client = signed_in_client(ada)
    assert survey_list(client) == 200
    copied = Client()
    copied.cookies = client.cookies.__class__(client.cookies)
    assert survey_list(copied) == 200
    client.post(reverse("logout"))
    assert survey_list(copied) == 302


def test_the_cached_copy_lives_at_most_session_cache_seconds(cached_sessions, ada):
    cached_sessions.SESSION_CACHE_SECONDS = 7
    client = signed_in_client(ada)
    key = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    full_key = cache.make_and_validate_key(SessionStore.cache_key_prefix + key)
    ttl = cache._cache.get_client(full_key).ttl(full_key)
    assert 0 < ttl <= 7


def test_an_unreachable_cache_falls_back_to_the_database(settings, ada):
    settings.CACHES = redis_cache(
        f"redis://127.0.0.1:{closed_port()}/0", prefix="sessions"
    )
    settings.SESSION_ENGINE = "surveys.accounts.session_store"
    client = signed_in_client(ada)
    assert survey_list(client) == 200
    copied = Client()
    copied.cookies = client.cookies.__class__(client.cookies)
    client.post(reverse("logout"))
    assert survey_list(copied) == 302


@pytest.mark.parametrize(
    ("cache_url", "engine"),
    [
        ("redis://127.0.0.1:6399/0", "surveys.accounts.session_store"),
        ("", "django.contrib.sessions.backends.db"),
        ("locmem://", "django.contrib.sessions.backends.db"),
    ],
)
def test_sessions_use_the_cache_only_when_it_is_shared(cache_url, engine):
    assert project_settings(CACHE_URL=cache_url)["SESSION_ENGINE"] == engine


def test_a_session_cache_lifetime_below_one_second_is_refused():
    with pytest.raises(ImproperlyConfigured, match="SESSION_CACHE_SECONDS"):
        project_settings(SESSION_CACHE_SECONDS="0")
