"""The replica router (surveys/analysis/replica.py) without a replica configured.

The routing to a real standby is tested in
tests/system/servers/test_read_replica.py.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys.analysis import replica
from surveys.analysis.models import ResultSnapshot
from surveys.collection.models import Report


def test_router_sends_every_write_to_the_primary_even_inside_a_replica_read():
    router = replica.ReplicaRouter()
    token = replica._reads_from.set(replica.REPLICA)
    try:
        assert router.db_for_read(Report) == replica.REPLICA
        assert router.db_for_write(Report) == replica.PRIMARY
    finally:
        replica._reads_from.reset(token)


def test_router_reads_from_the_primary_outside_a_replica_read():
    assert replica.ReplicaRouter().db_for_read(ResultSnapshot) == replica.PRIMARY


def test_router_migrates_the_primary_only():
    router = replica.ReplicaRouter()
    assert router.allow_migrate(replica.PRIMARY, "collection")
    assert not router.allow_migrate(replica.REPLICA, "collection")


@pytest.mark.django_db
def test_without_a_replica_released_reads_use_the_primary_and_cost_no_query():
    assert not replica.configured()
    with CaptureQueriesContext(connection) as queries, replica.released(1) as alias:
        assert alias == replica.PRIMARY
    assert len(queries) == 0


def test_streamed_items_are_read_with_the_source_chosen_when_it_was_made():
    seen = []

    def items():
        for item in range(3):
            seen.append(replica._reads_from.get())
            yield item

    chunks = replica.streamed(1, items())
    assert replica._reads_from.get() is None
    assert list(chunks) == [0, 1, 2]
    assert seen == [replica.PRIMARY] * 3
    assert replica._reads_from.get() is None
