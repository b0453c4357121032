"""Bulk-load randomized reports into a benchmark's scratch database with COPY.

Shared by the benchmarks that need many stored reports (``refresh.py``,
``reads.py``). Rows are written the way the app writes them (each report in
its compact columns, ``report_codec.encode``): random public
identifiers, an unknown receipt code and ``received_at`` at the configured
granularity. Needs Django set up against a PostgreSQL database.
"""

from __future__ import annotations

import uuid

import numpy as np


def store_reports(
    survey,
    count: int,
    rng: np.random.Generator,
    *,
    chunk: int = 500_000,
    question=None,
    analyze: bool = True,
) -> None:
    """COPY ``count`` one-report submissions of ``survey`` (one question, or
    ``question`` of it) into the database, randomized by the Python reference
    mechanism; ``analyze``: refresh the planner's statistics after each chunk
    (False leaves them as a bulk load without maintenance does)."""
    from django.db import connection

    import ldp
    from surveys.collection import report_codec
    from surveys.collection.models import (
        OptionalBits,
        Report,
        Submission,
        received_now,
        unknown_receipt_hash,
    )
    from surveys.collection.tokens import new_public_id

    question = question or survey.questions.get()
    mechanism = ldp.build(question.spec)
    now = received_now().isoformat()
    for start in range(0, count, chunk):
        size = min(chunk, count - start)
        payloads = mechanism.randomize(rng.integers(0, mechanism.k, size), rng)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT COALESCE(MAX(id), 0) FROM {Submission._meta.db_table}"  # noqa: S608
            )
            (before,) = cursor.fetchone()
            columns = (
                "survey_id, idempotency_key, survey_revision, received_at, "
                "public_id, receipt_hash, is_test, language, invited"
            )
            with cursor.copy(
                f"COPY {Submission._meta.db_table} ({columns}) FROM STDIN"
            ) as copy:
                for _ in range(size):
                    copy.write_row(
                        (
                            survey.pk,
                            uuid.uuid4(),
                            survey.revision,
                            now,
                            new_public_id(),
                            unknown_receipt_hash(),
                            False,
                            "",
                            False,  # not through an invitation
                        )
                    )
            cursor.execute(
                f"SELECT id FROM {Submission._meta.db_table} "  # noqa: S608
                "WHERE id > %s AND survey_id = %s ORDER BY id",
                [before, survey.pk],
            )
            ids = [row[0] for row in cursor.fetchall()]
            columns = (
                "submission_id, survey_id, question_id, spec_revision, value, bits, "
                "public_id, is_test"
            )
            with cursor.copy(
                f"COPY {Report._meta.db_table} ({columns}) FROM STDIN"
            ) as copy:
                for submission_id, payload in zip(ids, payloads.tolist(), strict=True):
                    stored = report_codec.encode(question.spec, payload)
                    copy.write_row(
                        (
                            submission_id,
                            survey.pk,
                            question.pk,
                            question.spec_revision,
                            stored.value,
                            OptionalBits.stored(stored.bits),  # empty, not NULL
                            new_public_id(),
                            False,
                        )
                    )
            if analyze:
                cursor.execute(f"ANALYZE {Report._meta.db_table}")


def store_responses(
    survey,
    count: int,
    rng: np.random.Generator,
    *,
    skip_share: float = 0.2,
    analyze: bool = True,
) -> None:
    """COPY ``count`` submissions of ``survey``: one report to its private
    question (as :func:`store_reports`) and, to its unprotected choice
    question, an answer, or a skip in a ``skip_share`` of them.  The survey
    has one private question and one optional unprotected choice question."""
    from django.db import connection

    from surveys.collection.models import PlainAnswer, SkippedAnswer, Submission

    plain = survey.questions.get(is_private=False)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COALESCE(MAX(id), 0) FROM {Submission._meta.db_table}"  # noqa: S608
        )
        (before,) = cursor.fetchone()
    store_reports(
        survey,
        count,
        rng,
        question=survey.questions.get(is_private=True),
        analyze=analyze,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {Submission._meta.db_table} "  # noqa: S608
            "WHERE id > %s AND survey_id = %s ORDER BY id",
            [before, survey.pk],
        )
        ids = [row[0] for row in cursor.fetchall()]
        skipped = rng.random(len(ids)) < skip_share
        answers = rng.integers(0, len(plain.options), len(ids))
        with cursor.copy(
            f"COPY {PlainAnswer._meta.db_table} "
            "(submission_id, survey_id, question_id, value, other_text) FROM STDIN"
        ) as copy:
            for submission_id, skip, answer in zip(ids, skipped, answers, strict=True):
                if not skip:
                    copy.write_row(
                        (submission_id, survey.pk, plain.pk, str(int(answer)), "")
                    )
        with cursor.copy(
            f"COPY {SkippedAnswer._meta.db_table} "
            "(submission_id, survey_id, question_id, reason) FROM STDIN"
        ) as copy:
            for submission_id, skip in zip(ids, skipped, strict=True):
                if skip:
                    copy.write_row((submission_id, survey.pk, plain.pk, "declined"))
