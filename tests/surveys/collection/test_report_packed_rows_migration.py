"""collection 0016: a one-value report's ``bits`` is stored empty instead of
NULL and the report table's columns are packed by alignment (PostgreSQL),
every row kept and read back as before; migrating back restores the NULLs."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from surveys.collection import partitioning
from surveys.collection.models import Report
from tests.surveys.analysis.conftest import FAMILIES, make_survey
from tests.surveys.partition_plans import REPORT_TABLE

# Migrating the whole test database back and forth: the suite, not the fast lane.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BEFORE = [("collection", "0015_report_question_do_nothing")]
COLUMNS = ("id", "submission_id", "question_id", "spec_revision", "value", "bits")
PACKED = [
    "id",
    "question_id",
    "submission_id",
    "survey_id",
    "spec_revision",
    "value",
    "public_id",
    "bits",
    "is_test",
]


def _migrate(targets):
    MigrationExecutor(connection).migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _column_order() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass "
            "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [REPORT_TABLE],
        )
        return [name for (name,) in cursor.fetchall()]


def _stored_bits() -> dict[int, bytes | None]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, bits FROM {REPORT_TABLE}")  # noqa: S608
        return {pk: None if b is None else bytes(b) for pk, b in cursor.fetchall()}


@pytest.fixture
def previous_schema(researcher):
    """A survey, the database back at collection 0015; the newest migrations
    are applied again afterwards, whatever happened."""
    survey = make_survey(researcher, FAMILIES[:2], plain=False)
    try:
        yield survey, _migrate(BEFORE)
    finally:
        _migrate(_latest())


def _write_reports(apps, survey) -> dict[int, tuple]:
    """One report per private question in each of two submissions, through
    the historical model: alternately one value (no bits) and packed bits."""
    Submission = apps.get_model("collection", "Submission")
    OldReport = apps.get_model("collection", "Report")
    written = {}
    for number in range(2):
        submission = Submission.objects.create(
            survey_id=survey.pk,
            idempotency_key=uuid.uuid4(),
            survey_revision=survey.revision,
        )
        for index, question in enumerate(survey.questions.filter(is_private=True)):
            value, bits = (1, None) if (index + number) % 2 else (None, b"\x81\x80")
            report = OldReport._default_manager.create(
                submission_id=submission.pk,
                survey_id=survey.pk,
                question_id=question.pk,
                spec_revision=question.spec_revision,
                value=value,
                bits=bits,
            )
            written[report.pk] = (report.pk, submission.pk, question.pk, 1, value, bits)
    return written


def test_reports_are_read_back_the_same_with_their_rows_packed(previous_schema):
    survey, apps = previous_schema
    written = _write_reports(apps, survey)
    assert None in _stored_bits().values()

    _migrate(_latest())
    read = Report.all_objects.order_by("id").values_list(*COLUMNS)
    assert {row[0]: (*row[:5], row[5] and bytes(row[5])) for row in read} == written
    assert _stored_bits() == {
        pk: b"" if row[5] is None else row[5] for pk, row in written.items()
    }
    assert _column_order() == PACKED
    assert len(partitioning.partitions(connection, REPORT_TABLE)) == (
        settings.REPORT_PARTITIONS
    )


def test_migrating_back_gives_the_one_value_reports_their_null_bits_again(
    previous_schema,
):
    survey, apps = previous_schema
    written = _write_reports(apps, survey)
    _migrate(_latest())

    _migrate(BEFORE)
    assert _stored_bits() == {pk: row[5] for pk, row in written.items()}


def test_a_report_with_both_a_value_and_bits_or_neither_is_refused(previous_schema):
    survey, apps = previous_schema
    written = _write_reports(apps, survey)
    _migrate(_latest())
    one_value = next(pk for pk, row in written.items() if row[5] is None)
    packed = next(pk for pk, row in written.items() if row[5] is not None)

    with pytest.raises(IntegrityError), transaction.atomic():
        Report.all_objects.filter(id=one_value).update(value=None)  # neither
    with pytest.raises(IntegrityError), transaction.atomic():
        Report.all_objects.filter(id=packed).update(value=1)  # both
    with pytest.raises(IntegrityError), transaction.atomic():
        Report.all_objects.filter(id=one_value).update(bits=b"\x01")  # both
