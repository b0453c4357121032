"""Fixtures for every Django test: rate limits are off unless a test turns them on.

Also ``own_redis``: a Redis server of the test's own, for outage tests.

The suite posts far more submissions from one test-client address than the
production limits allow (e.g. 50 concurrent submissions with one token), and
the default memory cache outlives a test; tests/surveys/collection/
test_rate_limits.py switches the limits on with fresh counters.
"""

from collections.abc import Iterator

import pytest

from tests.conftest import free_port
from tests.own_servers import OwnRedis


@pytest.fixture(autouse=True)
def _rate_limits_off(settings) -> None:
    """RATE_LIMITS_ENABLED=False for this test (restored afterwards)."""
    settings.RATE_LIMITS_ENABLED = False


@pytest.fixture
def own_redis(start_process) -> Iterator[OwnRedis]:
    """A Redis server of this test's own on a free port (stopped at the end)."""
    server = OwnRedis(start_process, free_port())
    server.start()
    yield server
