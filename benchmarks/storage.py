"""Bytes per stored report, per mechanism: the JSON payload (before) and the
compact columns (after, ``surveys/collection/report_codec.py``), on PostgreSQL.

Usage::

    python benchmarks/storage.py [--n 20000]

``DATABASE_URL`` (default ``postgres://postgres:postgres@127.0.0.1:5432/
deniable_bench``) names the server; the script makes a scratch database next to
it (the name + ``_storage``) migrated to the last schema with JSON payloads
(collection 0007), with one published question per mechanism below; then, for
each mechanism, in a copy of that database (``CREATE DATABASE … TEMPLATE``,
dropped afterwards):

1. before: ``n`` one-report submissions are stored with COPY in the old layout,
   each report the JSON the device sends (randomized by the Python reference,
   the same seeded data for every run), then ``VACUUM FULL`` and measured;
2. after: the real migrations (collection 0008 to the last) convert those rows,
   then ``VACUUM FULL`` (so both tables and their indexes are rebuilt alike)
   and the same measurements; every converted report is decoded back and must
   equal the JSON stored before.

Columns: ``report B`` is ``avg(pg_column_size)`` of the report's columns
(``payload``; after: ``value`` and ``bits``); ``table B/report`` is
``pg_table_size`` (heap with row headers, TOAST) over n; ``total B/report`` is
``pg_total_relation_size`` (the table and every index) over n, both summed
over the report table's partitions (``pg_partition_tree``); ``×`` is before
over after.  The scratch databases are dropped at the end, also on error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
DEFAULT_URL = "postgres://postgres:postgres@127.0.0.1:5432/deniable_bench"
os.environ.setdefault("DATABASE_URL", DEFAULT_URL)

from benchmarks.run_all import drop_database  # noqa: E402
from benchmarks.scratch import admin, scalar, use_database  # noqa: E402

BEFORE = ("collection", "0007_submission_survey_id")
GRID = {"low": "0", "high": "100", "step": "1"}
DESIGN = {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}


@dataclass(frozen=True)
class Case:
    label: str
    spec: dict
    kind: str = "single_choice"


CASES = [
    Case(
        "forced_response", {"mechanism": "forced_response", "design": DESIGN}, "yes_no"
    ),
    Case("warner", {"mechanism": "warner", "epsilon": 1.0}, "yes_no"),
    Case("grr k=8", {"mechanism": "grr", "k": 8, "epsilon": 1.0}),
    Case("grr k=1024", {"mechanism": "grr", "k": 1024, "epsilon": 1.0}),
    Case("ordinal k=7", {"mechanism": "ordinal", "k": 7, "epsilon": 1.0}, "ordinal"),
    Case(
        "geometric m=101", {"mechanism": "geometric", **GRID, "epsilon": 1.0}, "numeric"
    ),
    Case(
        "gaussian m=101", {"mechanism": "gaussian", **GRID, "epsilon": 1.0}, "numeric"
    ),
    Case("duchi m=101", {"mechanism": "duchi", **GRID, "epsilon": 1.0}, "numeric"),
    Case(
        "piecewise m=101", {"mechanism": "piecewise", **GRID, "epsilon": 1.0}, "numeric"
    ),
    Case("olh k=1024", {"mechanism": "olh", "k": 1024, "epsilon": 1.0}),
    Case("hadamard k=1024", {"mechanism": "hadamard", "k": 1024, "epsilon": 1.0}),
    Case(
        "padding_sampling k=64",
        {"mechanism": "padding_sampling", "k": 64, "ell": 4, "epsilon": 1.0},
        "multi_select",
    ),
    Case("oue k=64", {"mechanism": "oue", "k": 64, "epsilon": 1.0}),
    Case("oue k=1024", {"mechanism": "oue", "k": 1024, "epsilon": 1.0}),
    Case("sue k=64", {"mechanism": "sue", "k": 64, "epsilon": 1.0}),
    Case("sue k=1024", {"mechanism": "sue", "k": 1024, "epsilon": 1.0}),
    Case(
        "multi_rr k=64",
        {"mechanism": "multi_rr", "k": 64, "epsilon": 4.0},
        "multi_select",
    ),
]


def _migrate(targets) -> float:
    """Apply or unapply migrations up to ``targets``; return the seconds taken."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    started = time.perf_counter()
    MigrationExecutor(connection).migrate(targets)
    return time.perf_counter() - started


def _leaves(without_collection: bool):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    if without_collection:
        return [BEFORE if app == "collection" else (app, n) for app, n in leaves]
    return leaves


def _base(name: str) -> dict[str, int]:
    """Migrate the (empty) base database to the payload schema and publish one
    question per case; returns case label → question id."""
    import ldp
    from surveys.accounts.models import User
    from surveys.authoring.models import Question, SpecRevision, Survey

    _migrate(_leaves(without_collection=True))
    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}")
    questions = {}
    for case in CASES:
        spec = ldp.build(case.spec).spec
        survey = Survey.objects.create(
            owner=owner, title=case.label, status=Survey.Status.OPEN, revision=1
        )
        extra = {}
        if case.kind == "numeric":
            extra = {f"numeric_{f}": Decimal(GRID[f]) for f in ("low", "high", "step")}
        question = Question.objects.create(
            survey=survey,
            position=1,
            kind=case.kind,
            text=case.label,
            is_private=True,
            spec=spec,
            spec_revision=1,
            **extra,
        )
        SpecRevision.objects.create(question=question, revision=1, spec=spec)
        questions[case.label] = question.pk
    return questions


def _reports(case: Case, n: int) -> list:
    """n JSON reports of ``case``, randomized by the Python reference (seeded)."""
    import ldp

    mechanism = ldp.build(case.spec)
    rng = np.random.default_rng(20261127)
    if case.kind == "multi_select":
        truth = (rng.random((n, mechanism.k)) < 0.05).astype(np.int64)
        if "ell" in case.spec:
            truth[:, case.spec["ell"] :] = 0
        return mechanism.randomize(truth, rng).tolist()
    return mechanism.randomize(rng.integers(0, mechanism.k, n), rng).tolist()


def _store_payloads(question_id: int, reports: list) -> None:
    """COPY one submission and one JSON-payload report per report (old layout)."""
    from django.db import connection

    from surveys.collection.models import received_now, unknown_receipt_hash
    from surveys.collection.tokens import new_public_id

    survey_id = scalar(
        "SELECT survey_id FROM authoring_question WHERE id = %s", question_id
    )
    now = received_now().isoformat()
    with connection.cursor() as cursor:
        columns = (
            "survey_id, idempotency_key, survey_revision, received_at, public_id, "
            "receipt_hash, is_test"
        )
        with cursor.copy(f"COPY collection_submission ({columns}) FROM STDIN") as copy:
            for _ in reports:
                copy.write_row(
                    (
                        survey_id,
                        uuid.uuid4(),
                        1,
                        now,
                        new_public_id(),
                        unknown_receipt_hash(),
                        False,
                    )
                )
        cursor.execute("SELECT id FROM collection_submission ORDER BY id")
        ids = [row[0] for row in cursor.fetchall()]
        columns = (
            "submission_id, question_id, spec_revision, payload, public_id, is_test"
        )
        with cursor.copy(f"COPY collection_report ({columns}) FROM STDIN") as copy:
            for submission_id, report in zip(ids, reports, strict=True):
                copy.write_row(
                    (
                        submission_id,
                        question_id,
                        1,
                        json.dumps(report),
                        new_public_id(),
                        False,
                    )
                )


def _measure(columns: str, n: int) -> tuple[float, float, float]:
    """(avg report column bytes, table bytes per report, total bytes per report)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL collection_report")
        cursor.execute("ANALYZE collection_report")
    size = " + ".join(f"COALESCE(pg_column_size({c}), 0)" for c in columns.split(","))
    report = scalar(f"SELECT avg({size}) FROM collection_report")  # noqa: S608
    # Summed over the partitions (collection 0013), or the plain table alone.
    table = scalar(
        "SELECT COALESCE((SELECT sum(pg_table_size(relid)) "
        "FROM pg_partition_tree('collection_report') WHERE isleaf), "
        "pg_table_size('collection_report'))"
    )
    total = scalar(
        "SELECT COALESCE((SELECT sum(pg_total_relation_size(relid)) "
        "FROM pg_partition_tree('collection_report') WHERE isleaf), "
        "pg_total_relation_size('collection_report'))"
    )
    return float(report), float(table) / n, float(total) / n


def _check_converted(case: Case, reports: list) -> None:
    """Every converted report decodes to the JSON stored before."""
    import ldp
    from surveys.collection import report_codec
    from surveys.collection.models import Report

    spec = ldp.build(case.spec).spec
    rows = Report.all_objects.order_by("submission_id").values_list("value", "bits")
    decoded = [
        report_codec.decode(spec, value, bits) for value, bits in rows.iterator()
    ]
    if decoded != reports:
        sys.exit(f"{case.label}: converted reports differ from the JSON stored")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="reports per mechanism")
    args = parser.parse_args()
    url = os.environ["DATABASE_URL"]
    if not url.startswith("postgres"):
        sys.exit("set DATABASE_URL to a PostgreSQL server")
    import django

    django.setup()
    parts = urlsplit(url)
    base = f"{parts.path.lstrip('/')}_storage"
    drop_database(parts._replace(path=f"/{base}").geturl())
    admin(url, f'CREATE DATABASE "{base}"')
    scratch = f"{base}_case"
    try:
        use_database(base)
        questions = _base(base)
        use_database("postgres")
        print(f"n = {args.n:,} reports per mechanism; bytes per stored report")
        head = (
            f"{'mechanism':<22} | {'report B':>17} | {'table B/report':>22} | "
            f"{'total B/report':>22} | {'migrate s':>9}"
        )
        print(head)
        print(
            f"{'':<22} | {'before':>8} {'after':>8} | {'before':>8} {'after':>6} "
            f"{'×':>6} | {'before':>8} {'after':>6} {'×':>6} |"
        )
        print("-" * len(head))
        for case in CASES:
            reports = _reports(case, args.n)
            admin(url, f'CREATE DATABASE "{scratch}" TEMPLATE "{base}"')
            try:
                use_database(scratch)
                _store_payloads(questions[case.label], reports)
                before = _measure("payload", args.n)
                seconds = _migrate(_leaves(without_collection=False))
                after = _measure("value,bits", args.n)
                _check_converted(case, reports)
            finally:
                use_database("postgres")
                drop_database(parts._replace(path=f"/{scratch}").geturl())
            print(
                f"{case.label:<22} | {before[0]:>8.1f} {after[0]:>8.1f} | "
                f"{before[1]:>8.1f} {after[1]:>6.1f} {before[1] / after[1]:>5.2f}× | "
                f"{before[2]:>8.1f} {after[2]:>6.1f} {before[2] / after[2]:>5.2f}× | "
                f"{seconds:>9.2f}",
                flush=True,
            )
    finally:
        use_database("postgres")
        drop_database(parts._replace(path=f"/{scratch}").geturl())
        drop_database(parts._replace(path=f"/{base}").geturl())


if __name__ == "__main__":
    main()
