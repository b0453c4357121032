"""The report table's statements the ORM cannot make: the horizon fence and
refreshing the planner's statistics.

Ids come from a sequence when a row is inserted, but transactions commit in
any order, so a report with id 10 may become visible after one with id 11.
Whoever folds a survey's reports up to an id (the tallies,
``analysis.services``) must first know that no report of that survey at or
below it can still appear.  The fence :func:`report_horizon` does it for one
survey, never for the whole table:

* every transaction that inserts reports of a survey first locks the survey's
  row (``FOR UPDATE``, ``collection.services._lock_and_recheck``: ingestion one
  by one and in bulk) and holds it until it commits;
* the fence locks the same row (``FOR NO KEY UPDATE``, which conflicts with
  it), so it waits until every transaction inserting reports of *this* survey
  has committed or rolled back, and holds the survey's new inserts off for the
  instant it takes; then it reads the largest committed report id of the
  table (one step backwards on each partition's primary key).  Every report
  of the survey at or below it is then committed or gone, and one inserted
  later takes its id from the sequence after the fence released the row, so
  above it.  (The survey's own largest id, read through the (question, id)
  index, would spare the other partitions that one step, but PostgreSQL
  plans it from the statistics, and without them it sorted every report of
  the survey.)

Submissions and refreshes of other surveys neither wait for the fence nor
make it wait (the table-wide ``LOCK TABLE … IN SHARE MODE`` this replaced
made every survey's refresh wait for every survey's writes).

Why raw SQL here, and only here: the ORM locks rows (``select_for_update``)
but cannot bound the wait (``SET LOCAL lock_timeout``), nor run ``ANALYZE``
(:func:`analyze_survey_reports`) or name the partition a survey's rows are in.
Measured against the alternative the ORM can make alone (``MAX(id)`` of the
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
from django.db.models import Max

from surveys.authoring.models import Survey
from surveys.collection.models import PlainAnswer, Report, SkippedAnswer, Submission

logger = logging.getLogger(__name__)

# Postgres' SQLSTATE for a lock not granted within lock_timeout.
LOCK_NOT_AVAILABLE = "55P03"


def report_horizon(*, survey_id: int, lock_timeout_ms: int) -> int | None:
    """The largest report id below which no report of survey ``survey_id`` can
    still appear, or None when its in-flight submissions did not finish within
    ``lock_timeout_ms`` (0 if the survey no longer exists)."""
    found = horizons(survey_id=survey_id, lock_timeout_ms=lock_timeout_ms)
    return None if found is None else found[0]


def horizons(*, survey_id: int, lock_timeout_ms: int) -> tuple[int, int] | None:
    """:func:`report_horizon` and, read under the same fence, the survey's
    largest submission id (every submission of the survey at or below it is
    committed or gone, with its reports at or below the report horizon: a
    submission is stored with its reports, under the survey's row lock);
    None when the fence timed out, (0, 0) if the survey no longer exists.
    The submission's is one backward step on the (survey, id) index."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = {int(lock_timeout_ms)}")
            locked = list(
                Survey.objects.select_for_update(no_key=True)
                .filter(pk=survey_id)
                .values_list("pk", flat=True)
            )
            cursor.execute("SET LOCAL lock_timeout = DEFAULT")
            if not locked:
                return 0, 0
            # The largest committed id of the table: one step backwards on
            # each partition's primary key, whatever the planner's statistics.
            horizon = Report.all_objects.aggregate(top=Max("id"))["top"] or 0
            submission = (
                Submission.objects.filter(survey_id=survey_id).aggregate(top=Max("id"))[
                    "top"
                ]
                or 0
            )
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise
        logger.info("horizon of survey %s deferred: submissions in flight", survey_id)
        return None
    return int(horizon), int(submission)


def index_reads() -> None:
    """For the rest of the current transaction, read by index wherever an
    index serves the statement (``SET LOCAL enable_seqscan = off``).

    Every read of the incremental path (a keyset window of reports, the
    answers of a window's submissions, the tally rows) is a range of an
    index led by the survey, question or submission; the planner still costs
    a whole scan of a small or freshly loaded table (statistics stale or
    absent) as cheaper, and then reads rows in proportion to the table.  With
    sequential scans priced out the rows read are those of the ranges, the
    same whatever the table's size or its statistics.  A statement no index
    serves is still planned, as a scan (the setting raises its cost, it does
    not forbid it).  Outside a transaction this does nothing."""
    if connection.vendor != "postgresql" or not connection.in_atomic_block:
        return
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")


def _survey_table(cursor, survey_id: int, question_id: int) -> str:
    """The table holding the survey's reports: its partition (found from one
    of its rows, read through the (question, id) index), else the table."""
    table = connection.ops.quote_name(Report._meta.db_table)
    cursor.execute(
        f"SELECT tableoid::regclass::text FROM {table} "  # noqa: S608
        "WHERE survey_id = %s AND question_id = %s LIMIT 1",
        [survey_id, question_id],
    )
    row = cursor.fetchone()
    return row[0] if row else table


def statistics_cover(*, survey_id: int, question_id: int, up_to: int) -> bool:
    """Whether the planner's statistics of the table holding the survey's
    reports know of ids up to ``up_to`` (the last bound of the ``id``
    histogram); False when the table was never analyzed.  A bulk load leaves
    the histogram ending below the new ids: the planner then takes any range
    of them for nearly empty."""
    with connection.cursor() as cursor:
        target = _survey_table(cursor, survey_id, question_id)
        cursor.execute(
            "SELECT (histogram_bounds::text::bigint[])[array_upper("
            "histogram_bounds::text::bigint[], 1)] FROM pg_stats "
            "WHERE attname = 'id' AND (quote_ident(schemaname) || '.' || "
            "quote_ident(tablename))::regclass = %s::regclass",
            [target],
        )
        row = cursor.fetchone()
    return bool(row and row[0] is not None and row[0] >= up_to)


def analyze_survey_reports(*, survey_id: int, question_id: int) -> str:
    """Refresh the planner's statistics of the table holding the survey's
    reports (its partition, or the whole table when it is not partitioned),
    and of the unprotected answers and skips stored beside them; return the
    report table's name.

    ``ANALYZE`` samples at most 300 × ``default_statistics_target`` rows
    (30,000 by default) of each table, whatever its size."""
    with connection.cursor() as cursor:
        target = _survey_table(cursor, survey_id, question_id)
        for table in (
            target,
            connection.ops.quote_name(PlainAnswer._meta.db_table),
            connection.ops.quote_name(SkippedAnswer._meta.db_table),
        ):
            cursor.execute(f"ANALYZE {table}")
    logger.info("analyzed %s for the reports of survey %s", target, survey_id)
    return target
