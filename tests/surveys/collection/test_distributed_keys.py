"""Every key of the tables holding respondents' data carries the survey
(docs/scaling.md, section 7).

A distributed PostgreSQL (Citus) shards the reports, and with them the
unprotected answers, skips and link values, by ``survey_id``; their unique
keys and their foreign keys to other sharded tables must then include that
column.  These tests read PostgreSQL's catalogs of the migrated test
database, so a migration that adds a key without the survey fails here.
"""

from __future__ import annotations

import uuid

import pytest
from django.db import IntegrityError, connection, transaction

from surveys.collection.models import (
    LinkValue,
    PlainAnswer,
    Report,
    SkippedAnswer,
    Submission,
)

pytestmark = pytest.mark.django_db
SURVEY = "survey_id"
# The tables holding a respondent's data, sharded by survey with the reports.
RESPONSE_TABLES = [m._meta.db_table for m in (PlainAnswer, SkippedAnswer, LinkValue)]
# Tables that would be sharded by survey; a foreign key to any other
# (surveys, questions, accounts) is to a reference table.
SHARDED = {Report._meta.db_table, Submission._meta.db_table, *RESPONSE_TABLES}


def _report_tables() -> list[str]:
    """The report table and each of its partitions, and the other tables of
    a respondent's data."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = "
            "i.inhrelid WHERE i.inhparent = %s::regclass",
            [Report._meta.db_table],
        )
        partitions = sorted(r[0] for r in cursor.fetchall())
    return [Report._meta.db_table, *partitions, *RESPONSE_TABLES]


def _keys(table: str) -> list[tuple[str, str, list[str], str | None, list[str]]]:
    """(name, type, columns, referenced table, referenced columns) of the
    table's primary, unique and foreign keys."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.conname, c.contype, "
            "ARRAY(SELECT a.attname FROM unnest(c.conkey) k JOIN pg_attribute a "
            "ON a.attrelid = c.conrelid AND a.attnum = k), "
            "c.confrelid::regclass::text, "
            "ARRAY(SELECT a.attname FROM unnest(c.confkey) k JOIN pg_attribute a "
            "ON a.attrelid = c.confrelid AND a.attnum = k) "
            "FROM pg_constraint c WHERE c.conrelid = %s::regclass "
            "AND c.contype IN ('p', 'u', 'f')",
            [table],
        )
        return [
            (name, kind, list(cols), None if kind != "f" else target, list(refs))
            for name, kind, cols, target, refs in cursor.fetchall()
        ]


def test_the_report_table_is_checked_with_its_partitions():
    tables = _report_tables()
    assert tables[0] == Report._meta.db_table
    assert all(_keys(table) for table in tables)


def test_every_unique_key_of_the_report_tables_includes_the_survey():
    missing = [
        (table, name, cols)
        for table in _report_tables()
        for name, kind, cols, _, _ in _keys(table)
        if kind in "pu" and SURVEY not in cols
    ]
    assert missing == []


def test_every_foreign_key_to_a_sharded_table_includes_the_survey_on_both_sides():
    keys = [
        (table, name, cols, target, refs)
        for table in _report_tables()
        for name, kind, cols, target, refs in _keys(table)
        if kind == "f" and target in SHARDED
    ]
    referring = {table for table, *_ in keys}
    assert {Report._meta.db_table, *RESPONSE_TABLES} <= referring, referring
    assert [k for k in keys if SURVEY not in k[2] or SURVEY not in k[4]] == []


def test_a_report_of_another_survey_than_its_submissions_is_refused(researcher):
    from surveys.authoring import services as authoring
    from surveys.authoring.mechanisms import PrivacyConfig

    surveys = []
    for title in ("one", "two"):
        survey = authoring.survey_create(owner=researcher, title=title)
        authoring.question_create(
            survey=survey, text="Yes?", privacy=PrivacyConfig(kind="yes_no")
        )
        surveys.append(authoring.survey_publish(survey=survey, user=researcher))
    submission = Submission.objects.create(
        survey=surveys[0], idempotency_key=uuid.uuid4(), survey_revision=1
    )
    question = surveys[1].questions.get()

    with pytest.raises(IntegrityError), transaction.atomic():
        Report.objects.create(
            submission=submission,
            survey=surveys[1],
            question=question,
            spec_revision=question.spec_revision,
            value=1,
        )
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def _answer_of(model, submission, question) -> dict[str, object]:
    """The fields of one ``model`` row for ``submission`` and ``question``."""
    if model is LinkValue:
        return {"submission": submission, "name": "source", "value": "mail"}
    if model is PlainAnswer:
        return {"submission": submission, "question": question, "value": 1}
    return {"submission": submission, "question": question, "reason": "blank"}


@pytest.mark.parametrize("model", [PlainAnswer, SkippedAnswer, LinkValue])
def test_an_answer_of_another_survey_than_its_submissions_is_refused(researcher, model):
    from surveys.authoring import services as authoring
    from surveys.authoring.mechanisms import PrivacyConfig

    surveys = []
    for title in ("one", "two"):
        survey = authoring.survey_create(owner=researcher, title=title)
        authoring.question_create(
            survey=survey,
            text="Yes?",
            privacy=PrivacyConfig(kind="yes_no", is_private=False),
            not_private_acknowledged=True,
        )
        surveys.append(authoring.survey_publish(survey=survey, user=researcher))
    submission = Submission.objects.create(
        survey=surveys[0], idempotency_key=uuid.uuid4(), survey_revision=1
    )
    fields = _answer_of(model, submission, surveys[0].questions.get())

    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.create(survey=surveys[1], **fields)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
