"""The report table's layout on PostgreSQL: hash partitions by survey.

``collection_report`` is partitioned by ``HASH (survey_id)`` into a fixed
number of partitions (``REPORT_PARTITIONS``, read when the layout is built):
no DDL when a survey is created, and every read or write that names the survey
touches one partition (PostgreSQL prunes the others at planning time).  The
reasons for hash over list or range partitions, and the figures behind them,
are in ``docs/scaling.md``.

A partitioned table's primary key and unique constraints must include the
partition key, so on PostgreSQL the key is ``(id, survey_id)`` (led by ``id``,
so a lookup by id alone still uses an index in each partition) and the two
unique constraints name ``survey`` (``Report.Meta``).  Django still treats
``id`` as the primary key: ids come from one sequence shared by all
partitions, so they stay unique and increasing, which the tally watermark
relies on.

:func:`rebuild` converts the table (plain or partitioned) into either layout
in the caller's transaction: a new table is built, every row copied, the old
table dropped and the new one renamed, with the same check and foreign-key
constraints, unique constraints, indexes and the id sequence carried on from
where it stood (never reused: an id at or below a watermark is never handed
out again).  Migration ``collection.0013`` and the ``report_partitions``
command use it.

Why raw SQL: Django's schema editor creates plain tables only (no ``PARTITION
BY``, no ``PARTITION OF``, no primary key that includes the partition key),
and its ORM cannot copy a table into another, carry a sequence over or read
the catalog (``pg_class``, ``pg_inherits``).  What partitioning buys is
measured in docs/scaling.md and by ``benchmarks/partitions.py``.  This module
and ``report_store`` (the horizon fence) are the only raw SQL outside the
migrations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

MAX_PARTITIONS = 1024
PARTITION_KEY = "survey_id"


def check_partition_count(count: int) -> int:
    """``count`` if it is a usable partition count (1 to ``MAX_PARTITIONS``)."""
    if not isinstance(count, int) or not 1 <= count <= MAX_PARTITIONS:
        raise ValueError(
            f"the report partition count is {count!r}; allowed: an integer "
            f"from 1 to {MAX_PARTITIONS}"
        )
    return count


@dataclass(frozen=True)
class Partition:
    """One partition of the report table, as :func:`partitions` lists it."""

    name: str
    remainder: int
    rows: int  # an estimate (the planner's statistics), 0 before ANALYZE
    bytes: int  # table, indexes and TOAST


def is_partitioned(connection: BaseDatabaseWrapper, table: str) -> bool:
    """Whether ``table`` is a partitioned table."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = %s::regclass", [table])
        return cursor.fetchone()[0] == "p"


def partitions(connection: BaseDatabaseWrapper, table: str) -> list[Partition]:
    """The partitions of ``table`` in remainder order ([] if it has none)."""
    if not is_partitioned(connection, table):
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname, pg_get_expr(c.relpartbound, c.oid),
                   GREATEST(c.reltuples, 0)::bigint,
                   pg_total_relation_size(c.oid)
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = %s::regclass
            """,
            [table],
        )
        found = [
            Partition(name, _remainder(bound), rows, size)
            for name, bound, rows, size in cursor.fetchall()
        ]
    return sorted(found, key=lambda p: p.remainder)


def _remainder(bound: str) -> int:
    # "FOR VALUES WITH (modulus 16, remainder 3)"
    return int(bound.rsplit("remainder", 1)[1].strip(" )"))


def rebuild(
    schema_editor: BaseDatabaseSchemaEditor, model: Any, count: int | None
) -> None:
    """Rebuild ``model``'s table hash-partitioned into ``count`` partitions by
    ``survey_id``, or as one plain table if ``count`` is None.

    Runs in the caller's transaction and takes the table's ACCESS EXCLUSIVE
    lock first: readers and writers wait until the commit, and a failure
    anywhere rolls everything back.  ``model`` may be a migration's historical
    model; its ``Meta`` gives the unique constraints and indexes to rebuild.
    """
    connection = schema_editor.connection
    if count is not None:
        check_partition_count(count)
    table = model._meta.db_table
    new = f"{table}_new"
    q = schema_editor.quote_name
    with connection.cursor() as cursor:
        # Check the transaction's deferred foreign keys now: a table with
        # pending checks cannot be dropped (as Django's own schema changes do).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f"LOCK TABLE {q(table)} IN ACCESS EXCLUSIVE MODE")
        next_id = _next_id(cursor, table)
        foreign_keys = _constraints(cursor, table, "f")
        # Columns (NOT NULL included) in the order that pads least, then the
        # check constraints with their names.
        columns = _columns_packed(cursor, table)
        layout = "" if count is None else f" PARTITION BY HASH ({PARTITION_KEY})"
        definitions = ", ".join(
            f"{q(name)} {type_}{' NOT NULL' if not_null else ''}"
            for name, type_, not_null in columns
        )
        cursor.execute(f"CREATE TABLE {q(new)} ({definitions}){layout}")
        for name, definition in _constraints(cursor, table, "c"):
            cursor.execute(
                f"ALTER TABLE {q(new)} ADD CONSTRAINT {q(name)} {definition}"
            )
        for remainder in range(count or 0):
            cursor.execute(
                f"CREATE TABLE {q(f'{new}_p{remainder}')} PARTITION OF {q(new)} "
                f"FOR VALUES WITH (MODULUS {count}, REMAINDER {remainder})"
            )
        names = ", ".join(q(name) for name, _, _ in columns)
        cursor.execute(
            f"INSERT INTO {q(new)} ({names}) SELECT {names} FROM {q(table)}"  # noqa: S608
        )
        cursor.execute(f"DROP TABLE {q(table)}")  # its partitions and sequence too
        cursor.execute(f"ALTER TABLE {q(new)} RENAME TO {q(table)}")
        for remainder in range(count or 0):
            cursor.execute(
                f"ALTER TABLE {q(f'{new}_p{remainder}')} "
                f"RENAME TO {q(f'{table}_p{remainder}')}"
            )
        key = "id" if count is None else f"id, {PARTITION_KEY}"
        cursor.execute(
            f"ALTER TABLE {q(table)} ADD CONSTRAINT {q(f'{table}_pkey')} "
            f"PRIMARY KEY ({key})"
        )
        _continue_ids(cursor, q, table, next_id, identity=count is None)
        for name, definition in foreign_keys:
            cursor.execute(
                f"ALTER TABLE {q(table)} ADD CONSTRAINT {q(name)} {definition}"
            )
    for constraint in model._meta.constraints:
        if not _is_check(constraint):  # checks came with the columns
            schema_editor.add_constraint(model, constraint)
    for index in model._meta.indexes:
        schema_editor.add_index(model, index)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {q(table)}")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def _is_check(constraint: Any) -> bool:
    return type(constraint).__name__ == "CheckConstraint"


def _next_id(cursor: Any, table: str) -> int:
    """The id the table's sequence would hand out next (1 for a new one)."""
    cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
    sequence = cursor.fetchone()[0]
    cursor.execute(f"SELECT last_value, is_called FROM {sequence}")  # noqa: S608
    last_value, is_called = cursor.fetchone()
    return int(last_value) + 1 if is_called else int(last_value)


def _constraints(cursor: Any, table: str, kind: str) -> list[tuple[str, str]]:
    """(name, definition) of the table's own constraints of one ``kind``
    (``pg_constraint.contype``: "f" foreign keys, "c" checks; not its
    partitions')."""
    cursor.execute(
        """
        SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conrelid = %s::regclass AND contype = %s ORDER BY conname
        """,
        [table, kind],
    )
    return list(cursor.fetchall())


# Where a column goes in a rebuilt row, by its type's alignment: 8-byte, then
# 4- and 2-byte fixed-width columns, then variable-length ones (a short value
# is stored unaligned), then 1-byte ones.  No fixed-width column then waits
# for padding after a narrower or variable-length one.
_PACKED_ORDER = {"d": 0, "i": 1, "s": 2, "varlena": 3, "c": 4}


def _columns_packed(cursor: Any, table: str) -> list[tuple[str, str, bool]]:
    """(name, type, NOT NULL) of the table's columns in the order that wastes
    no alignment padding (``_PACKED_ORDER``), the current order within each
    kind.  The report table as migrations left it had 11 bytes of padding in
    a one-value row (4 after a 4-byte column before the 8-byte ones, 7 before
    the partition key, added last): 8 bytes more per row once the row had no
    NULL (collection 0016)."""
    cursor.execute(
        """
        SELECT attname, format_type(atttypid, atttypmod), attnotnull,
               CASE WHEN attlen = -1 THEN 'varlena' ELSE attalign::text END
        FROM pg_attribute
        WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped
        ORDER BY attnum
        """,
        [table],
    )
    rows = cursor.fetchall()
    ordered = sorted(rows, key=lambda row: _PACKED_ORDER[row[3]])  # stable
    return [(name, type_, not_null) for name, type_, not_null, _ in ordered]


def _continue_ids(
    cursor: Any, q: Any, table: str, next_id: int, *, identity: bool
) -> None:
    """Give ``table.id`` a sequence that starts at ``next_id``: an identity
    column (what Django makes) on a plain table; an owned sequence on a
    partitioned one (PostgreSQL before 17 has no identity on those)."""
    if identity:
        cursor.execute(
            f"ALTER TABLE {q(table)} ALTER COLUMN id "
            f"ADD GENERATED BY DEFAULT AS IDENTITY (START WITH {int(next_id)})"
        )
        return
    sequence = f"{table}_id_seq"
    cursor.execute(f"CREATE SEQUENCE {q(sequence)} AS bigint OWNED BY {q(table)}.id")
    cursor.execute("SELECT setval(%s, %s, false)", [sequence, next_id])
    cursor.execute(
        f"ALTER TABLE {q(table)} ALTER COLUMN id "
        f"SET DEFAULT nextval('{q(sequence)}'::regclass)"
    )
