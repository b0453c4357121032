"""Fixtures for every Django test: rate limits are off unless a test turns them on.

The suite posts far more submissions from one test-client address than the
production limits allow (e.g. 50 concurrent submissions with one token), and
the default memory cache outlives a test; tests/surveys/collection/
test_rate_limits.py switches the limits on with fresh counters.
"""

from collections.abc import Iterator

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """MD5 password hashing: these tests make many users and never test hashing.

    The production hasher costs about a second per user on two cores
    (tests/surveys/accounts keeps it).
    """
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _default_language_after() -> Iterator[None]:
    """Each test starts and ends in the site's default language.

    A page read through the test client activates the reader's language in
    the test's thread (``LocaleMiddleware``, ``localize_for_request``), and
    nothing puts it back between requests: a server starts each request anew,
    a test runner does not, so a French reader's page would leave the next
    test, in the same worker, in French.
    """
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _rate_limits_off(settings) -> None:
    """RATE_LIMITS_ENABLED=False for this test (restored afterwards)."""
    settings.RATE_LIMITS_ENABLED = False


@pytest.fixture(autouse=True)
def _patient_horizon_fence(monkeypatch) -> None:
    """The tally refresh's horizon fence waits up to 10 s instead of 1 s.

    Its lock on the survey's row waits for the survey's submissions in
    flight: on a loaded machine a test's single refresh could give up first,
    fold nothing and leave its results empty.  Deferral
    itself is tested with an explicit short timeout (test_tallies_in_flight.py).
    """
    from surveys.analysis.tallies import services

    monkeypatch.setattr(services, "LOCK_TIMEOUT_MS", 10_000)
