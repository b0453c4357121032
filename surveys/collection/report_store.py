"""The report table's one statement the ORM cannot make: the horizon fence.

Ids come from a sequence when a row is inserted, but transactions commit in
any order, so a report with id 10 may become visible after one with id 11.
Whoever folds reports up to an id (the tallies, ``analysis.services``) must
first know that no report at or below it can still appear.  The fence
:func:`report_horizon` locks the report table in SHARE mode, which waits until
every transaction that inserted reports has committed or rolled back and holds
new inserts off for the instant it takes, and reads the largest id.

Why raw SQL here, and only here: Django's ORM locks rows it reads
(``select_for_update``), never a table, and a row lock cannot wait for rows
that are not yet visible; nor can it bound the wait (``lock_timeout``).
Measured against the alternative the ORM can make (``MAX(id)`` of the
visible rows, with an insert held open while a refresh runs:
``test_report_committed_after_a_higher_id_is_still_counted`` in
tests/surveys/analysis/tallies/test_tallies.py), that read folds past the
uncommitted report and loses it for good; the fence never does.  The layout
DDL of the same table (hash partitions, ``partitioning``) is the other raw SQL
of this store.
"""

from __future__ import annotations

import logging

from django.db import OperationalError, connection, transaction

from surveys.collection.models import Report

logger = logging.getLogger(__name__)

# Postgres' SQLSTATE for a lock not granted within lock_timeout.
LOCK_NOT_AVAILABLE = "55P03"


def report_horizon(*, lock_timeout_ms: int) -> int | None:
    """The largest report id below which no report can still appear, or None
    when in-flight submissions did not finish within ``lock_timeout_ms``."""
    table = connection.ops.quote_name(Report._meta.db_table)
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
            cursor.execute(f"LOCK TABLE {table} IN SHARE MODE")
            cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")  # noqa: S608
            horizon = int(cursor.fetchone()[0])
            cursor.execute("SET LOCAL lock_timeout = DEFAULT")
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise
        logger.info("tally horizon deferred: submissions still in flight")
        return None
    return horizon
