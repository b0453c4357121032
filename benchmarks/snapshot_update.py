"""Bringing a results snapshot up to date after 1,000 new reports, against n.

Usage::

    DATABASE_URL=postgres://.../scratch python benchmarks/snapshot_update.py \
        [--max 1000000] [--new 1000]

Needs a scratch PostgreSQL database (``harness.ensure_database`` creates it,
``harness.setup_django`` migrates it; nothing else should use it).  The survey
has one protected choice question and one optional unprotected choice
question (an answer, or a skip in one submission of five).  For each size
(10^4, 10^5, 10^6 stored reports, up to ``--max``) it bulk-loads the
submissions (``bulk.store_responses``, COPY, with no ``ANALYZE``: the
statistics are as a bulk load leaves them), catches the tallies and the
snapshot up (timed: the backlog catch-up), stores ``--new`` more, then times
the update (``tallies_refresh`` then ``snapshot_refresh``, as the worker runs
them) and counts the rows it read.

Rows read are PostgreSQL's own counters (``pg_stat_user_tables``:
``seq_tup_read + idx_tup_fetch``), read before and after, of the report
table's partitions (the catch-up's as a multiple of the backlog: 1.00× is
each new report read once) and of every table; the
baseline column is the recount of the unprotected answers and skips from the
stored answers (``answers.counts_up_to``), what every snapshot did
before the answers had tallies of their own.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bulk import store_responses
from benchmarks.harness import ensure_database, setup_django

SIZES = [10_000, 100_000, 1_000_000, 10_000_000]


def make_survey():
    """One protected and one optional unprotected choice question."""
    from surveys.accounts.models import User
    from surveys.authoring import services as authoring
    from surveys.authoring.mechanisms import PrivacyConfig

    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}")
    survey = authoring.survey_create(owner=owner, title="Snapshot update benchmark")
    authoring.question_create(
        survey=survey,
        text="Which one?",
        privacy=PrivacyConfig(
            kind="single_choice",
            options=("A", "B", "C", "D", "E", "F", "G", "H"),
            epsilon=1.0,
            mechanism="grr",
        ),
    )
    authoring.question_create(
        survey=survey,
        text="Age band?",
        privacy=PrivacyConfig(
            kind="single_choice",
            is_private=False,
            options=("18-29", "30-44", "45-59", "60+"),
        ),
        not_private_acknowledged=True,
        optional=True,
    )
    return authoring.survey_publish(survey=survey, user=owner)


def rows_read() -> tuple[int, int]:
    """Rows read so far (sequentially and by index) from every table, and
    from the report table's partitions alone."""
    from django.db import connection

    from surveys.collection.models import Report

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
    time.sleep(0.05)  # the flush happens as the statement's transaction ends
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT COALESCE(SUM(COALESCE(seq_tup_read, 0) "
            "+ COALESCE(idx_tup_fetch, 0)), 0), "
            "COALESCE(SUM(COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0)) "
            "FILTER (WHERE relid = %s::regclass OR relid IN (SELECT inhrelid "
            "FROM pg_inherits WHERE inhparent = %s::regclass)), 0) "
            "FROM pg_stat_user_tables",
            [Report._meta.db_table] * 2,
        )
        total, reports = cursor.fetchone()
        return int(total), int(reports)


def measured(function) -> tuple[float, int, int]:
    """(seconds, rows read, report rows read) of ``function()``."""
    before = rows_read()
    started = time.perf_counter()
    function()
    seconds = time.perf_counter() - started
    after = rows_read()
    return seconds, after[0] - before[0], after[1] - before[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=float, default=1e6, help="largest size")
    parser.add_argument("--new", type=int, default=1_000, help="new reports")
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("set DATABASE_URL to a scratch PostgreSQL database")
    ensure_database(url)
    setup_django(url)
    from django.test.utils import override_settings

    from surveys.analysis.models import TallyWatermark
    from surveys.analysis.results import answer_counts
    from surveys.analysis.tallies import answers, services, snapshots

    rng = np.random.default_rng(20261207)
    survey = make_survey()
    stored = 0
    print(
        f"{'stored reports':>14} | {'catch-up':>9} {'report rows':>11} "
        f"{'all rows':>10} | {'update +' + str(args.new):>11} {'report rows':>11} "
        f"{'all rows':>9} | {'old answer recount':>18} {'all rows':>10}"
    )
    print("-" * 112)
    # Every new submission is released at once (no batch held back).
    with override_settings(SNAPSHOT_MIN_NEW_SUBMISSIONS=1):
        for size in (s for s in SIZES if s <= args.max):
            backlog = size - args.new - stored
            store_responses(survey, backlog, rng, analyze=False)

            def update() -> None:
                services.tallies_refresh(survey_id=survey.pk)
                snapshots.snapshot_refresh(survey_id=survey.pk)

            catch_up_s, catch_up_rows, catch_up_reports = measured(update)
            store_responses(survey, args.new, rng, analyze=False)
            stored = size
            update_s, update_rows, update_reports = measured(update)
            mark = TallyWatermark.objects.get(survey=survey).last_submission_id
            old_s, old_rows, _ = measured(
                lambda mark=mark: answers.counts_up_to(
                    survey_id=survey.pk, last_submission_id=mark
                )
            )
            stored_counts = answer_counts.stored_counts(survey_id=survey.pk)
            recounted = answers.counts_up_to(
                survey_id=survey.pk, last_submission_id=mark
            )
            if stored_counts.by_question() != recounted.by_question():
                sys.exit("the answer tallies differ from a recount")
            print(
                f"{size:>14,} | {catch_up_s:>7.2f} s "
                f"{catch_up_reports / backlog:>10.2f}× {catch_up_rows:>10,} | "
                f"{update_s:>9.3f} s {update_reports:>11,} {update_rows:>9,} | "
                f"{old_s:>16.3f} s {old_rows:>10,}"
            )


if __name__ == "__main__":
    main()
