"""A throw-away PostgreSQL cluster for backup, restore and upgrade."""

from collections.abc import Iterator

import pytest

from tests.conftest import free_port
from tests.own_servers import OwnPostgres


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[OwnPostgres]:
    """A PostgreSQL cluster of these tests' own, removed afterwards.  Each test
    creates databases of its own in it."""
    cluster = OwnPostgres(free_port())
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()
