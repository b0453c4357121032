"""The cost of bringing joint and pattern tallies and the snapshot up to date:
rows read in proportion to the new reports, whatever n.

Apart from test_cells.py, whose surveys kept for the module would be read
too by the sequential scans of a small table these tests count.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from surveys.analysis.tallies import services, snapshots
from surveys.authoring.lifecycle_services import survey_delete
from surveys.authoring.models import Survey
from surveys.authoring.selectors import survey_released_count
from surveys.collection.models import Report
from tests.surveys.analysis.conftest import untallied
from tests.surveys.analysis.tallies.test_cells import PROTECTED, cells_survey, submit

pytestmark = pytest.mark.django_db


def _rows_read() -> dict[str, int]:
    """Rows read so far in this transaction, per table
    (``pg_stat_xact_user_tables``: sequentially and by index)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) "
            "FROM pg_stat_xact_user_tables"
        )
        return dict(cursor.fetchall())


def _reads_between(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    read: dict[str, int] = {}
    for table, rows in after.items():
        # The survey's partition of the report table, whichever it is.
        name = "report" if table.startswith(Report._meta.db_table) else table
        if rows != before.get(table, 0):
            read[name] = read.get(name, 0) + rows - before.get(table, 0)
    return read


def _update_reads(survey: Survey, backlog: int, new: int) -> dict[str, int]:
    """Rows read, per table, to bring the snapshot up to date after ``new``
    reports on top of ``backlog`` already in it."""
    with untallied():
        for start in range(0, backlog, 500):
            submit(survey, min(500, backlog - start), start)
        services.tallies_refresh(survey_id=survey.pk)
        snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
        submit(survey, new, 99_999)
    before = _rows_read()
    services.tallies_refresh(survey_id=survey.pk)
    outcome = snapshots.snapshot_refresh(survey_id=survey.pk)
    after = _rows_read()
    assert outcome.advanced
    return _reads_between(before, after)


def _small_survey(ada, title: str) -> Survey:
    """Two protected questions, an optional region and a plain yes/no."""
    return cells_survey(ada, title, PROTECTED[1:3])


@pytest.mark.slow
@override_settings(SNAPSHOT_MIN_NEW_SUBMISSIONS=1)
def test_an_update_after_new_reports_reads_the_same_rows_at_two_sizes(ada):
    read = []
    # One survey at a time: a small table is read whole (a sequential scan),
    # so another survey's tally rows would count too.
    for title, backlog in (("small", 500), ("large", 5_000)):
        published = _small_survey(ada, title)
        # 1,000 new reports (500 submissions of two) past 1,000, then 10,000.
        read.append(_update_reads(published, backlog, 500))
        survey_delete(survey=published, user=ada)

    # Ten times the stored reports, the same work within 2x: the refresh and
    # the snapshot read by index ranges only (``report_store.index_reads``),
    # so no table or partition is scanned whole, whatever the planner's
    # statistics of the moment; reading in proportion to n would read at
    # least five times as many rows here.
    small, large = read
    # Each new report is read once, in its window: the window's end is an id
    # bound (no read), and the release is the submission bound the refresh
    # recorded (no read either).  The constant: the horizon's one backward
    # step per partition and the probe for a submission straddling the start.
    assert small["report"] <= 1.1 * 1_000 + 10, small
    assert large["report"] <= 2 * small["report"], (small, large)
    for table, rows in large.items():
        assert rows <= 2 * max(small.get(table, 0), 100), (table, small, large)
    assert sum(large.values()) <= 2 * sum(small.values()), (small, large)


@pytest.mark.slow
@override_settings(SNAPSHOT_MIN_NEW_SUBMISSIONS=1)
def test_catching_up_on_a_backlog_reads_each_new_report_once_and_releases_it_in_one_row(
    ada,
):
    published = _small_survey(ada, "backlog")
    with untallied():
        submit(published, 10, 1)
        services.tallies_refresh(survey_id=published.pk)
        snapshots.snapshot_refresh(survey_id=published.pk)
        for start in range(0, 2_000, 500):
            submit(published, 500, start + 2)
    backlog = 2 * 2_000  # two protected questions per submission

    before = _rows_read()
    # Four windows of 1,000 reports, the first after refreshing the planner's
    # statistics (the backlog is past them).
    outcome = services.tallies_refresh(survey_id=published.pk, batch_size=1_000)
    with CaptureQueriesContext(connection) as swap:
        released = snapshots.snapshot_refresh(survey_id=published.pk)
    read = _reads_between(before, _rows_read())

    assert outcome.folded == backlog and outcome.analyzed
    assert released.advanced
    assert read["report"] <= 1.1 * backlog, read
    assert survey_released_count(survey=published) == 2_010
    # The release is the snapshot's bound: no submission row is written.
    writes = [q["sql"] for q in swap.captured_queries if "UPDATE" in q["sql"]]
    assert not [sql for sql in writes if "collection_submission" in sql], writes
