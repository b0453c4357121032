"""On PostgreSQL, reports are hash-partitioned by survey; a survey's reads and
writes touch its partition only; the layout can be rebuilt with another count."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, Subquery
from django.test.utils import CaptureQueriesContext

from surveys.analysis.exports import raw_reports
from surveys.analysis.results import pending as pending_counts
from surveys.analysis.results import selectors
from surveys.analysis.tallies import services, snapshots
from surveys.authoring.lifecycle_services import survey_delete
from surveys.authoring.models import Question, Survey
from surveys.collection import partitioning
from surveys.collection import services as collection
from surveys.collection.models import PlainAnswer, Report, Submission
from surveys.collection.services import submission_ingest, submission_withdraw
from tests.surveys.analysis.conftest import (
    FAMILIES,
    make_survey,
    responses,
    submit_bulk,
    submit_one,
    untallied,
)
from tests.surveys.partition_plans import (
    REPORT_TABLE,
    partition_of,
    partitions_planned,
    report_statements,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def surveys_in_three_partitions(researcher):
    """Surveys (two questions each) until three partitions hold one each."""
    found: dict[str, object] = {}
    for _ in range(40):
        survey = make_survey(researcher, FAMILIES[:2], plain=True)
        found.setdefault(partition_of(survey.pk), survey)
        if len(found) == 3:
            return list(found.values())
    raise AssertionError("40 surveys fell into fewer than three partitions")


def _rows_by_partition() -> dict[str, set[int]]:
    """partition name → the survey ids of the reports it holds."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tableoid::regclass::text, survey_id FROM {REPORT_TABLE}"  # noqa: S608
        )
        found: dict[str, set[int]] = {}
        for partition, survey_id in cursor.fetchall():
            found.setdefault(partition, set()).add(survey_id)
    return found


def test_the_report_table_has_the_configured_number_of_hash_partitions():
    found = partitioning.partitions(connection, REPORT_TABLE)

    assert partitioning.is_partitioned(connection, REPORT_TABLE)
    assert [p.remainder for p in found] == list(range(settings.REPORT_PARTITIONS))
    assert [p.name for p in found] == [
        f"{REPORT_TABLE}_p{i}" for i in range(settings.REPORT_PARTITIONS)
    ]


def test_stored_reports_carry_their_submissions_survey_in_its_partition(
    surveys_in_three_partitions,
):
    with untallied():
        for survey in surveys_in_three_partitions:
            submit_bulk(survey, 4)

    by_partition = _rows_by_partition()
    assert by_partition == {
        partition_of(s.pk): {s.pk} for s in surveys_in_three_partitions
    }
    submissions = Submission.objects.filter(pk=OuterRef("submission_id"))
    assert not Report.all_objects.exclude(
        survey_id=Subquery(submissions.values("survey_id"))
    ).exists()


def _assert_one_partition(statements: list[str], survey) -> None:
    assert statements, "no statement read the report table"
    for sql in statements:
        assert partitions_planned(sql) == {partition_of(survey.pk)}, sql


def test_a_tally_refresh_reads_only_the_surveys_partition(
    surveys_in_three_partitions,
):
    first = surveys_in_three_partitions[0]
    with untallied():
        for survey in surveys_in_three_partitions:
            submit_bulk(survey, 5)
    with CaptureQueriesContext(connection) as captured:
        services.tallies_refresh(survey_id=first.pk, batch_size=3)
        services.tallies_recount(survey_id=first.pk, batch_size=4)

    statements = report_statements(captured.captured_queries)
    # The horizon fence reads the largest id of all partitions, by design
    # (one sequence for all; docs/scaling.md): every other read is pruned.
    fenced = [sql for sql in statements if "MAX(" in sql.upper()]
    assert len(fenced) == 2
    _assert_one_partition([s for s in statements if s not in fenced], first)


def test_results_and_exports_read_only_the_surveys_partition(
    surveys_in_three_partitions,
):
    survey = surveys_in_three_partitions[1]
    for each in surveys_in_three_partitions:
        submit_bulk(each, 3)
    services.tallies_refresh(survey_id=survey.pk)
    snapshots.snapshot_refresh(survey_id=survey.pk)  # released: exports read it
    with CaptureQueriesContext(connection) as captured:
        selectors.survey_results(survey=survey)
        selectors.responses_between(survey_id=survey.pk, after=0, up_to=None)
        page = raw_reports.reports_page(survey, after="", limit=4)

    assert len(page) == 4
    _assert_one_partition(report_statements(captured.captured_queries), survey)


def _report_deletes(queries: list[dict[str, str]]) -> list[str]:
    return [
        sql for sql in report_statements(queries) if sql.lstrip().startswith("DELETE")
    ]


def test_a_withdrawal_deletes_its_reports_in_the_surveys_partition(
    surveys_in_three_partitions,
):
    survey = surveys_in_three_partitions[2]
    submission = submit_one(survey).submission
    with CaptureQueriesContext(connection) as captured:
        deleted = submission_withdraw(submission=submission)

    assert deleted == 2
    assert not Report.all_objects.filter(submission_id=submission.pk).exists()
    assert not Submission.objects.filter(pk=submission.pk).exists()
    _assert_one_partition(_report_deletes(captured.captured_queries), survey)


def test_deleting_test_responses_touches_only_the_surveys_partition(
    surveys_in_three_partitions,
):
    survey, other = surveys_in_three_partitions[:2]
    with untallied():
        for response in responses(survey, 2, seed=3):
            submission_ingest(survey=survey, response=response, is_test=True)
        submit_one(survey, seed=4)
        submit_bulk(other, 2)
    with CaptureQueriesContext(connection) as captured:
        deleted = collection.test_submissions_delete(survey=survey)

    assert deleted == 2
    assert not Submission.objects.filter(survey=survey, is_test=True).exists()
    assert Report.all_objects.filter(survey_id=survey.pk).count() == 2  # kept one
    assert Report.all_objects.filter(survey_id=other.pk).count() == 4
    _assert_one_partition(_report_deletes(captured.captured_queries), survey)


def test_deleting_a_survey_deletes_reports_in_its_partition_only(
    surveys_in_three_partitions, researcher
):
    survey, other = surveys_in_three_partitions[:2]
    with untallied():
        submit_bulk(survey, 3)
        submit_bulk(other, 2)
    with CaptureQueriesContext(connection) as captured:
        deleted = survey_delete(survey=survey, user=researcher)

    assert deleted == 3
    assert not Survey.objects.filter(pk=survey.pk).exists()
    assert not Report.all_objects.filter(survey_id=survey.pk).exists()
    assert not PlainAnswer.objects.filter(submission__survey_id=survey.pk).exists()
    assert Report.all_objects.filter(survey_id=other.pk).count() == 4
    _assert_one_partition(_report_deletes(captured.captured_queries), survey)


def test_deleting_a_survey_reads_no_partition_but_its_own(
    surveys_in_three_partitions, researcher
):
    survey, other = surveys_in_three_partitions[:2]
    with untallied():
        submit_bulk(survey, 2)
        submit_bulk(other, 2)
    with CaptureQueriesContext(connection) as captured:
        survey_delete(survey=survey, user=researcher)

    # Not even the check for reports by question id before the questions go.
    _assert_one_partition(report_statements(captured.captured_queries), survey)
    assert Report.all_objects.filter(survey_id=other.pk).count() == 4


def test_a_question_with_reports_still_cannot_be_deleted_underneath_them(
    surveys_in_three_partitions,
):
    survey = surveys_in_three_partitions[0]
    with untallied():
        submit_one(survey)
    question = survey.questions.first()

    # The database's foreign key refuses it (when checked: at commit, here
    # at once), though Django's collector no longer looks for the reports.
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.filter(pk=question.pk).delete()
        connection.check_constraints()
    assert Report.all_objects.filter(question_id=question.pk).count() == 1


def test_rebuilding_with_another_count_keeps_every_report_and_the_next_id(
    surveys_in_three_partitions,
):
    with untallied():
        for survey in surveys_in_three_partitions:
            submit_bulk(survey, 3)
    before = list(Report.all_objects.order_by("id").values())
    highest = before[-1]["id"]
    Report.all_objects.filter(id=highest).delete()  # its id is never reused

    call_command("report_partitions", "--count", "4")

    found = partitioning.partitions(connection, REPORT_TABLE)
    assert [p.remainder for p in found] == [0, 1, 2, 3]
    assert list(Report.all_objects.order_by("id").values()) == before[:-1]
    with untallied():
        submit_one(surveys_in_three_partitions[0], seed=7)
    assert Report.all_objects.order_by("id").last().id > highest


def test_rebuilding_as_one_plain_table_and_back_keeps_every_report(
    surveys_in_three_partitions,
):
    with untallied():
        submit_bulk(surveys_in_three_partitions[0], 4)
    before = list(Report.all_objects.order_by("id").values())

    call_command("report_partitions", "--count", "0")
    assert not partitioning.is_partitioned(connection, REPORT_TABLE)
    assert list(Report.all_objects.order_by("id").values()) == before

    call_command("report_partitions", "--count", "3")
    assert len(partitioning.partitions(connection, REPORT_TABLE)) == 3
    assert list(Report.all_objects.order_by("id").values()) == before


@pytest.mark.parametrize("count", ["-1", "1025"])
def test_a_partition_count_out_of_range_is_refused_and_changes_nothing(count):
    with pytest.raises(CommandError, match="allowed: an integer from 1 to 1024"):
        call_command("report_partitions", "--count", count)

    assert len(partitioning.partitions(connection, REPORT_TABLE)) == (
        settings.REPORT_PARTITIONS
    )


def test_the_command_lists_each_partition_with_its_rows_and_bytes(
    surveys_in_three_partitions, capsys
):
    with untallied():
        submit_bulk(surveys_in_three_partitions[0], 2)
    call_command("report_partitions")

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["partition", "rows", "bytes"]
    assert [line.split()[0] for line in lines[1:-1]] == [
        f"{REPORT_TABLE}_p{i}" for i in range(settings.REPORT_PARTITIONS)
    ]
    assert lines[-1].startswith(f"{settings.REPORT_PARTITIONS} hash partitions")


@pytest.mark.parametrize("count", [0, 1025, 2.0, "16", None])
def test_a_partition_count_that_is_not_an_integer_from_1_to_1024_is_refused(count):
    with pytest.raises(ValueError, match=f"is {count!r}; allowed"):
        partitioning.check_partition_count(count)


def test_partition_counts_from_1_to_1024_are_accepted():
    assert [partitioning.check_partition_count(n) for n in (1, 16, 1024)] == [
        1,
        16,
        1024,
    ]


def test_a_readers_pending_counts_read_only_the_surveys_partition(
    surveys_in_three_partitions,
):
    survey = surveys_in_three_partitions[0]
    for each in surveys_in_three_partitions:
        submit_bulk(each, 3)
    with CaptureQueriesContext(connection) as captured:
        pending = pending_counts.pending_after(survey_id=survey.pk, watermark=0)

    assert pending == (6, 3)
    _assert_one_partition(report_statements(captured.captured_queries), survey)
