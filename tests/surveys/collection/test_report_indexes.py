"""The report table carries only the indexes its queries use."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def _indexed_columns(table: str) -> set[tuple[str, ...]]:
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, table)
    return {
        tuple(found["columns"])
        for found in constraints.values()
        if found["index"] or found["unique"] or found["primary_key"]
    }


def test_reports_have_four_indexes_each_used_by_a_query():
    assert _indexed_columns("collection_report") == {
        ("id", "survey_id"),  # the primary key (with the partition key)
        ("survey_id", "public_id"),  # the only report id that leaves the server
        ("submission_id", "question_id", "survey_id"),  # one per question
        ("question_id", "id"),  # tallies and counts past a watermark
    }


def _plan(sql: str) -> str:
    """The plan PostgreSQL picks when it may avoid a sequential scan."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # the test's transaction
        cursor.execute(f"EXPLAIN {sql}")
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM collection_report WHERE submission_id = 1",
        "SELECT id FROM collection_report WHERE question_id = 1",
    ],
    ids=["deleting-a-submissions-reports", "finding-a-questions-reports"],
)
def test_reports_are_found_through_an_index(sql):
    plan = _plan(sql)
    assert "Seq Scan" not in plan, plan
