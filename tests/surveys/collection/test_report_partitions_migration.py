"""collection 0012-0013: existing reports get their survey and move into hash
partitions (PostgreSQL), every row and the id sequence kept; migrating back
rebuilds one plain table with the same rows."""

from __future__ import annotations

import random
import uuid

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from surveys.collection import partitioning
from surveys.collection.models import Report
from tests.surveys.analysis.conftest import FAMILIES, make_survey, submit_one, untallied
from tests.surveys.partition_plans import REPORT_TABLE, partition_of

# Migrating the whole test database back and forth: the suite, not the fast lane.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BEFORE = [("collection", "0011_report_indexes_trimmed")]
SURVEY_KEPT = [("collection", "0012_report_survey")]
COLUMNS = ("id", "submission_id", "question_id", "spec_revision", "value", "bits")


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.fixture
def previous_schema(researcher):
    """Two surveys, the database back at collection 0011 (no survey on
    reports, one plain table); the newest migrations are applied again
    afterwards, whatever happened."""
    surveys = [make_survey(researcher, FAMILIES[:2], plain=False) for _ in range(2)]
    try:
        yield surveys, _migrate(BEFORE)
    finally:
        _migrate(_latest())


def _write_reports(apps, surveys, count: int) -> dict[int, tuple]:
    """``count`` submissions per survey, interleaved, one integer report per
    private question, through the historical models; id → (survey, row)."""
    Submission = apps.get_model("collection", "Submission")
    OldReport = apps.get_model("collection", "Report")
    draws = random.Random(5)
    written = {}
    for _ in range(count):
        for survey in surveys:
            submission = Submission.objects.create(
                survey_id=survey.pk,
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
            )
            for question in survey.questions.filter(is_private=True):
                report = OldReport._default_manager.create(
                    submission_id=submission.pk,
                    question_id=question.pk,
                    spec_revision=question.spec_revision,
                    value=draws.randrange(2),
                )
                written[report.pk] = (
                    survey.pk,
                    (report.pk, submission.pk, question.pk, 1, report.value, None),
                )
    return written


def test_existing_reports_move_into_their_surveys_partitions_and_back(
    previous_schema,
):
    surveys, apps = previous_schema
    written = _write_reports(apps, surveys, 4)  # 16 reports
    assert not partitioning.is_partitioned(connection, REPORT_TABLE)

    _migrate(_latest())
    assert partitioning.is_partitioned(connection, REPORT_TABLE)
    assert len(partitioning.partitions(connection, REPORT_TABLE)) == (
        settings.REPORT_PARTITIONS
    )
    rows = Report.all_objects.order_by("id")
    assert {r[0]: (r[-1], r[:-1]) for r in rows.values_list(*COLUMNS, "survey_id")} == (
        written
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tableoid::regclass::text, survey_id FROM {REPORT_TABLE}"  # noqa: S608
        )
        placed = set(cursor.fetchall())
    assert placed == {(partition_of(s.pk), s.pk) for s in surveys}

    apps = _migrate(SURVEY_KEPT)
    assert not partitioning.is_partitioned(connection, REPORT_TABLE)
    KeptReport = apps.get_model("collection", "Report")
    kept = KeptReport._default_manager.values_list(*COLUMNS, "survey_id")
    assert {r[0]: (r[-1], r[:-1]) for r in kept} == written


def test_ids_continue_past_every_id_handed_out_before_the_migration(
    previous_schema,
):
    surveys, apps = previous_schema
    written = _write_reports(apps, surveys, 2)
    highest = max(written)
    apps.get_model("collection", "Report")._default_manager.filter(
        id=highest
    ).delete()  # withdrawn: a watermark may already stand at its id

    _migrate(_latest())
    with untallied():
        submit_one(surveys[0], seed=3)
    new_ids = set(Report.all_objects.values_list("id", flat=True)) - set(written)

    assert new_ids and min(new_ids) > highest


def test_the_constraints_hold_on_the_partitioned_table(previous_schema):
    surveys, apps = previous_schema
    written = _write_reports(apps, surveys, 1)
    _migrate(_latest())
    report = Report.all_objects.get(id=min(written))
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, REPORT_TABLE)

    checks = {name for name, c in constraints.items() if c["check"]}
    foreign = {c["columns"][0] for c in constraints.values() if c["foreign_key"]}
    assert "report_value_or_bits" in checks
    assert foreign == {"submission_id", "question_id", "survey_id"}
    with pytest.raises(IntegrityError), transaction.atomic():
        Report.all_objects.filter(id=report.id).update(value=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        Report.all_objects.create(
            submission_id=report.submission_id,
            question_id=report.question_id,
            survey_id=report.survey_id,
            spec_revision=1,
            value=0,
        )  # a second report for the same question
