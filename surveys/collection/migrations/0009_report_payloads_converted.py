"""Existing reports converted from their JSON payload to ``value`` or ``bits``.

Each row is converted with ``surveys.collection.report_codec`` under the spec
it was made with, ``BATCH`` rows at a time, each batch its own transaction
(this migration is not atomic): a large table is never held in memory or in
one transaction, and a run that stops part-way is simply run again (it
converts the rows not yet converted; the migration is recorded as applied only
once every row is).  Reversible: going back fills ``payload`` again from the
columns (``report_codec.decode``), in the same batches.

Stop the web processes while 0008 to 0010 run (docs/operations.md,
"Upgrade"): a version older than this one would store payloads only.
"""


from __future__ import annotations

import json
from typing import Any

from django.db import migrations, models, transaction

from surveys.collection import report_codec

BATCH = 5_000


def _specs(apps) -> dict[tuple[int, int], Any]:
    """The compiled spec of every (question, spec revision)."""
    SpecRevision = apps.get_model("authoring", "SpecRevision")
    Question = apps.get_model("authoring", "Question")
    specs = {
        (question_id, revision): spec
        for question_id, revision, spec in SpecRevision._default_manager.values_list(
            "question_id", "revision", "spec"
        )
    }
    for pk, revision, spec in Question._default_manager.filter(
        spec__isnull=False
    ).values_list("pk", "spec_revision", "spec"):
        specs.setdefault((pk, revision), spec)
    return specs


def _spec(specs: dict, report_id: int, question_id: int, revision: int) -> Any:
    try:
        return specs[(question_id, revision)]
    except KeyError:
        raise LookupError(
            f"report {report_id} of question {question_id} was made under spec "
            f"revision {revision}, which has no stored spec; it cannot be converted"
        ) from None


def _batches(Report, db: str, pending: models.Q, fields: tuple[str, ...]):
    """Rows matching ``pending``, BATCH at a time by id, each batch yielded
    inside its own transaction."""
    last = 0
    while True:
        with transaction.atomic(using=db):
            rows = list(
                Report._default_manager.using(db)
                .filter(pending, id__gt=last)
                .order_by("id")
                .values_list("id", "question_id", "spec_revision", *fields)[:BATCH]
            )
            if not rows:
                return
            yield rows
        last = rows[-1][0]


def payloads_to_columns(apps, schema_editor) -> None:
    """Fill ``value`` or ``bits`` of every row still holding only a payload."""
    Report = apps.get_model("collection", "Report")
    db = schema_editor.connection.alias
    specs = _specs(apps)
    pending = models.Q(value__isnull=True, bits__isnull=True)
    table = schema_editor.quote_name(Report._meta.db_table)
    for rows in _batches(Report, db, pending, ("payload",)):
        stored = [
            (pk, report_codec.encode(_spec(specs, pk, q, r), payload))
            for pk, q, r, payload in rows
        ]
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} AS r SET value = v.value, bits = v.bits "  # noqa: S608
                "FROM unnest(%s::bigint[], %s::integer[], %s::bytea[]) "
                "AS v(id, value, bits) WHERE r.id = v.id",
                [
                    [pk for pk, _ in stored],
                    [s.value for _, s in stored],
                    [s.bits for _, s in stored],
                ],
            )


def columns_to_payloads(apps, schema_editor) -> None:
    """Fill ``payload`` again from ``value`` or ``bits`` (the way back)."""
    Report = apps.get_model("collection", "Report")
    db = schema_editor.connection.alias
    specs = _specs(apps)
    pending = models.Q(payload__isnull=True)
    table = schema_editor.quote_name(Report._meta.db_table)
    for rows in _batches(Report, db, pending, ("value", "bits")):
        payloads = [
            (pk, report_codec.decode(_spec(specs, pk, q, r), value, bits))
            for pk, q, r, value, bits in rows
        ]
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} AS r SET payload = v.payload::jsonb "  # noqa: S608
                "FROM unnest(%s::bigint[], %s::text[]) AS v(id, payload) "
                "WHERE r.id = v.id",
                [[pk for pk, _ in payloads], [json.dumps(p) for _, p in payloads]],
            )


class Migration(migrations.Migration):
    atomic = False  # each batch of the conversion commits on its own

    dependencies = [
        ("authoring", "0010_question_grid"),
        ("collection", "0008_report_value_bits"),
    ]

    operations = [migrations.RunPython(payloads_to_columns, columns_to_payloads)]
