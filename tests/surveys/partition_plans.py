"""Which partitions of the report table a statement reads, by PostgreSQL's plan."""

from __future__ import annotations

import re

from django.db import connection

REPORT_TABLE = "collection_report"
_PARTITION = re.compile(rf"\b{REPORT_TABLE}_p\d+\b")


def partitions_planned(sql: str) -> set[str]:
    """The report partitions named in the plan of ``sql`` (EXPLAIN, not run)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return set(_PARTITION.findall(plan))


def partition_of(survey_id: int) -> str:
    """The partition that holds (or will hold) ``survey_id``'s reports."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname, pg_get_expr(c.relpartbound, c.oid)
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = %s::regclass
            """,
            [REPORT_TABLE],
        )
        bounds = cursor.fetchall()
        for name, bound in bounds:
            modulus, remainder = (int(n) for n in re.findall(r"\d+", bound))
            cursor.execute(
                "SELECT satisfies_hash_partition(%s::regclass, %s, %s, %s::bigint)",
                [REPORT_TABLE, modulus, remainder, survey_id],
            )
            if cursor.fetchone()[0]:
                return name
    raise LookupError(f"no partition of {REPORT_TABLE} takes survey {survey_id}")


def report_statements(queries: list[dict[str, str]]) -> list[str]:
    """The SELECT, UPDATE and DELETE statements among ``queries`` (as
    ``CaptureQueriesContext`` records them) that read the report table."""
    return [
        q["sql"]
        for q in queries
        if f'"{REPORT_TABLE}"' in q["sql"]
        and q["sql"].lstrip().split()[0].upper() in {"SELECT", "UPDATE", "DELETE"}
    ]
