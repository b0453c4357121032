"""Rate limits per address, per invitation token and per survey.

docs/testing.md, section 4: excess gets 429 with Retry-After and a message,
and nothing is stored."""

from __future__ import annotations

import logging
import time
import uuid

import pytest
import redis
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.urls import reverse

from surveys.authoring.models import Survey
from surveys.collection import ratelimit, services
from surveys.collection.models import Invitation, PlainAnswer, Report, Submission
from tests.conftest import free_port
from tests.surveys.collection.conftest import JSON, body

pytestmark = pytest.mark.django_db

HIGH = "1000/60"


# Every limit a test here sets counts per window of 60 s; a test's requests
# take far less than this margin, so none straddles two windows.
PERIOD, MARGIN = 60, 5


@pytest.fixture
def limits(settings):
    """Limits on, all high, with counters no other test has touched, starting
    at least ``MARGIN`` seconds before the current window ends (the counters are
    fixed windows: two requests either side of a window's end are counted
    apart, which would let a test's second request through)."""
    left = PERIOD - time.time() % PERIOD
    if left < MARGIN:
        time.sleep(left + 0.05)
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMIT_PER_ADDRESS = HIGH
    settings.RATE_LIMIT_PER_TOKEN = HIGH
    settings.RATE_LIMIT_PER_SURVEY = HIGH
    settings.RATE_LIMIT_LOOKUPS_PER_ADDRESS = HIGH
    settings.RATE_LIMIT_PAGES_PER_ADDRESS = HIGH
    settings.RATE_LIMIT_TRUSTED_PROXIES = 0
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"rate-limits-{uuid.uuid4()}",
        }
    }
    return settings


def redis_cache(url: str) -> dict:
    """CACHES for a real Redis, with a key prefix no other test uses."""
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": f"test-{uuid.uuid4().hex}",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }


def respond_url(survey) -> str:
    return reverse("collection:respond", args=[survey.public_token])


def invitation_url(token: str) -> str:
    return reverse("collection:respond_invitation", args=[token])


def stored() -> tuple[int, int, int]:
    return (
        Submission.objects.count(),
        Report.objects.count(),
        PlainAnswer.objects.count(),
    )


def assert_limited(response, scope_words: str) -> None:
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    data = response.json()
    assert data["code"] == "rate_limited"
    assert scope_words in data["error"]
    assert "nothing was stored" in data["error"]
    assert data["retry_after"] == int(response["Retry-After"])


# --- per address ----------------------------------------------------------------
def test_submissions_over_the_address_limit_get_429_and_are_not_stored(
    client, survey, limits
):
    limits.RATE_LIMIT_PER_ADDRESS = "3/60"
    for _ in range(3):
        assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    before = stored()
    response = client.post(respond_url(survey), body(survey), **JSON)
    assert_limited(response, "from your network")
    assert stored() == before
    assert before[0] == 3


def test_form_post_over_the_limit_gets_a_readable_page_with_retry_after(
    client, survey, limits
):
    limits.RATE_LIMIT_PER_ADDRESS = "1/60"
    assert client.post(respond_url(survey), body(survey)).status_code == 303
    response = client.post(respond_url(survey), body(survey))
    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/html")
    assert int(response["Retry-After"]) >= 1
    page = response.content.decode()
    assert "Please wait a moment" in page
    assert "nothing was stored" in page
    assert Submission.objects.count() == 1


def test_other_addresses_are_not_limited_by_one_busy_address(client, survey, limits):
    limits.RATE_LIMIT_PER_ADDRESS = "1/60"
    busy = {"REMOTE_ADDR": "192.0.2.10"}
    assert (
        client.post(respond_url(survey), body(survey), **JSON, **busy).status_code
        == 201
    )
    assert (
        client.post(respond_url(survey), body(survey), **JSON, **busy).status_code
        == 429
    )
    other = {"REMOTE_ADDR": "192.0.2.11"}
    assert (
        client.post(respond_url(survey), body(survey), **JSON, **other).status_code
        == 201
    )
    assert Submission.objects.count() == 2


def test_forged_forwarded_for_is_ignored_without_trusted_proxies(
    client, survey, limits
):
    limits.RATE_LIMIT_PER_ADDRESS = "1/60"
    first = {"HTTP_X_FORWARDED_FOR": "198.51.100.1"}
    second = {"HTTP_X_FORWARDED_FOR": "198.51.100.2"}
    assert (
        client.post(respond_url(survey), body(survey), **JSON, **first).status_code
        == 201
    )
    response = client.post(respond_url(survey), body(survey), **JSON, **second)
    assert response.status_code == 429
    assert Submission.objects.count() == 1


def test_trusted_proxy_count_takes_the_client_from_forwarded_for(
    client, survey, limits
):
    limits.RATE_LIMIT_PER_ADDRESS = "1/60"
    limits.RATE_LIMIT_TRUSTED_PROXIES = 1
    # The client can forge what is to the left; the proxy appends the real peer.
    one = {"HTTP_X_FORWARDED_FOR": "203.0.113.9, 198.51.100.1"}
    same_peer = {"HTTP_X_FORWARDED_FOR": "203.0.113.10, 198.51.100.1"}
    other_peer = {"HTTP_X_FORWARDED_FOR": "203.0.113.9, 198.51.100.2"}
    assert (
        client.post(respond_url(survey), body(survey), **JSON, **one).status_code == 201
    )
    limited = client.post(respond_url(survey), body(survey), **JSON, **same_peer)
    assert limited.status_code == 429
    accepted = client.post(respond_url(survey), body(survey), **JSON, **other_peer)
    assert accepted.status_code == 201
    assert Submission.objects.count() == 2


def test_ipv6_clients_are_counted_per_64_block(rf, settings):
    settings.RATE_LIMIT_TRUSTED_PROXIES = 0
    one = rf.get("/", REMOTE_ADDR="2001:db8:1:2::1")
    same_block = rf.get("/", REMOTE_ADDR="2001:db8:1:2:ffff::9")
    assert ratelimit.client_address(one) == ratelimit.client_address(same_block)
    assert ratelimit.client_address(one) == "2001:db8:1:2::/64"


# --- per invitation token -------------------------------------------------------
def test_invitation_over_the_token_limit_gets_429_and_stays_unused(
    client, survey, limits
):
    limits.RATE_LIMIT_PER_TOKEN = "2/60"
    (token,) = services.invitations_create(survey=survey, count=1)
    bad = body(survey, survey_revision="999")
    for _ in range(2):
        assert client.post(invitation_url(token), bad, **JSON).status_code == 409
    response = client.post(invitation_url(token), body(survey), **JSON)
    assert_limited(response, "invitation link")
    assert stored() == (0, 0, 0)
    assert Invitation.objects.get().used is False


def test_token_limit_is_independent_of_other_tokens(client, survey, limits):
    limits.RATE_LIMIT_PER_TOKEN = "1/60"
    busy, fresh = services.invitations_create(survey=survey, count=2)
    bad = body(survey, survey_revision="999")
    assert client.post(invitation_url(busy), bad, **JSON).status_code == 409
    assert client.post(invitation_url(busy), body(survey), **JSON).status_code == 429
    assert client.post(invitation_url(fresh), body(survey), **JSON).status_code == 201
    assert Submission.objects.count() == 1
    assert Invitation.objects.filter(used=False).count() == 1


def test_unknown_tokens_count_against_their_own_token_limit(client, survey, limits):
    limits.RATE_LIMIT_PER_TOKEN = "1/60"
    guess = invitation_url("not-a-real-token")
    assert client.post(guess, body(survey), **JSON).status_code == 404
    assert client.post(guess, body(survey), **JSON).status_code == 429
    assert stored() == (0, 0, 0)


# --- opening invitation pages (token guessing) ----------------------------------
def test_opening_invitation_pages_over_the_address_limit_gets_429(
    client, survey, limits
):
    limits.RATE_LIMIT_LOOKUPS_PER_ADDRESS = "3/60"
    (token,) = services.invitations_create(survey=survey, count=1)
    for guess in ("a" * 32, "b" * 32):
        url = reverse("collection:consent_invitation", args=[guess])
        assert client.get(url).status_code == 404
    assert client.get(invitation_url("c" * 32)).status_code == 404
    # Over the limit even a real token gets 429: the answer reveals nothing.
    response = client.get(reverse("collection:consent_invitation", args=[token]))
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert "reload this page" in response.content.decode()
    assert Invitation.objects.get().used is False


# --- opening public survey pages (bounded cost) ----------------------------------
def consent_url(survey) -> str:
    return reverse("collection:consent", args=[survey.public_token])


def test_opening_public_pages_over_the_address_limit_gets_429_and_changes_nothing(
    client, survey, limits
):
    limits.RATE_LIMIT_PAGES_PER_ADDRESS = "3/60"
    for url in (consent_url(survey), respond_url(survey), consent_url(survey)):
        assert client.get(url).status_code == 200
    revision = survey.revision
    for url in (consent_url(survey), respond_url(survey)):
        response = client.get(url)
        assert response.status_code == 429
        assert 1 <= int(response["Retry-After"]) <= 60
        page = response.content.decode()
        assert "Too many survey pages were opened from your network" in page
        assert "reload this page" in page
    survey.refresh_from_db()
    assert (survey.status, survey.revision) == ("open", revision)
    assert stored() == (0, 0, 0)


def test_page_limit_answers_json_to_the_pages_script(client, survey, limits):
    limits.RATE_LIMIT_PAGES_PER_ADDRESS = "0/60"
    response = client.get(respond_url(survey), HTTP_ACCEPT="application/json")
    assert response.status_code == 429
    data = response.json()
    assert data["code"] == "rate_limited"
    assert data["retry_after"] == int(response["Retry-After"])
    assert "Too many survey pages" in data["error"]


def test_page_limit_spares_other_addresses_and_submissions(client, survey, limits):
    limits.RATE_LIMIT_PAGES_PER_ADDRESS = "1/60"
    assert client.get(consent_url(survey)).status_code == 200
    assert client.get(consent_url(survey)).status_code == 429
    other = {"REMOTE_ADDR": "192.0.2.77"}
    assert client.get(consent_url(survey), **other).status_code == 200
    # Sending answers is counted by the submission limits, not by this one.
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    assert stored()[0] == 1


def test_page_limit_keys_hold_no_address(client, survey, limits):
    limits.RATE_LIMIT_PAGES_PER_ADDRESS = "5/60"
    address = "198.51.100.23"
    client.get(consent_url(survey), REMOTE_ADDR=address)
    keys = [key for key in cache._cache if ":ratelimit:page:" in key]
    assert len(keys) == 1
    assert address not in keys[0]


# --- per survey -----------------------------------------------------------------
def test_survey_limit_holds_across_addresses_and_spares_other_surveys(
    client, survey, limits, kinds_survey
):
    limits.RATE_LIMIT_PER_SURVEY = "2/60"
    for index in range(2):
        address = {"REMOTE_ADDR": f"192.0.2.{20 + index}"}
        response = client.post(respond_url(survey), body(survey), **JSON, **address)
        assert response.status_code == 201
    before = stored()
    response = client.post(
        respond_url(survey), body(survey), **JSON, REMOTE_ADDR="192.0.2.99"
    )
    assert_limited(response, "This survey is receiving more answers")
    assert stored() == before
    other = kinds_survey
    assert client.post(respond_url(other), body(other), **JSON).status_code == 201


# --- switches and failures ------------------------------------------------------
def test_disabled_limits_accept_everything_under_any_rate(client, survey, limits):
    limits.RATE_LIMITS_ENABLED = False
    limits.RATE_LIMIT_PER_ADDRESS = "1/60"
    for _ in range(3):
        assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    assert Submission.objects.count() == 3


def test_rates_that_are_not_count_per_seconds_are_refused():
    for text in ("30", "30/0", "x/60", "", "-1/60"):
        with pytest.raises(ImproperlyConfigured):
            ratelimit.parse_rate(text, name="RATE_LIMIT_PER_ADDRESS")
    assert ratelimit.parse_rate(" 30 / 60 ") == ratelimit.Rate(30, 60)


def test_unreachable_cache_fails_open_with_a_warning_naming_no_token(
    client, survey, limits, caplog
):
    limits.CACHES = redis_cache(f"redis://127.0.0.1:{free_port()}/0")
    limits.RATE_LIMIT_PER_ADDRESS = "1/60"
    limits.RATE_LIMIT_PER_TOKEN = "1/60"
    (token,) = services.invitations_create(survey=survey, count=1)
    with caplog.at_level(logging.WARNING, logger="surveys.collection.ratelimit"):
        assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
        response = client.post(invitation_url(token), body(survey), **JSON)
    assert response.status_code == 201
    assert Submission.objects.count() == 2
    warnings = [r.getMessage() for r in caplog.records if r.name.endswith("ratelimit")]
    assert warnings and all("cache is unavailable" in w for w in warnings)
    assert not any(token in w for w in warnings)


def test_counters_in_redis_are_shared_by_two_clients(survey, limits, redis_url):
    cache_settings = redis_cache(redis_url)
    limits.CACHES = cache_settings
    limits.RATE_LIMIT_PER_SURVEY = "3/60"
    first, second = Client(), Client()
    assert (
        first.post(
            respond_url(survey), body(survey), **JSON, REMOTE_ADDR="192.0.2.1"
        ).status_code
        == 201
    )
    assert (
        second.post(
            respond_url(survey), body(survey), **JSON, REMOTE_ADDR="192.0.2.2"
        ).status_code
        == 201
    )
    assert (
        first.post(
            respond_url(survey), body(survey), **JSON, REMOTE_ADDR="192.0.2.3"
        ).status_code
        == 201
    )
    response = second.post(
        respond_url(survey), body(survey), **JSON, REMOTE_ADDR="192.0.2.4"
    )
    assert_limited(response, "This survey is receiving more answers")
    assert Submission.objects.count() == 3
    # The counters live in Redis itself, where every web process reads them.
    prefix = cache_settings["default"]["KEY_PREFIX"]
    connection = redis.Redis.from_url(redis_url)
    try:
        keys = list(connection.scan_iter(match=f"{prefix}:*ratelimit:survey:*"))
        assert len(keys) == 1
        assert int(connection.get(keys[0])) == 4
        assert all(b"192.0.2" not in key for key in connection.scan_iter(f"{prefix}:*"))
        connection.delete(*connection.scan_iter(match=f"{prefix}:*"))
    finally:
        connection.close()


def test_a_post_checked_again_against_fresh_rows_counts_once_for_the_survey(
    client, survey, limits
):
    limits.RATE_LIMIT_PER_SURVEY = "2/60"
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    # The rows this process kept no longer match under the lock: the POST is
    # checked again the ordinary way, its survey limit counted once.
    Survey.objects.filter(pk=survey.pk).update(title="A retitled survey")
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 429
    assert Submission.objects.count() == 2
