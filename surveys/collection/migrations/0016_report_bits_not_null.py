"""Report rows without padding: no NULL in a one-value report's row, and the
columns in the order that pads least.

``bits`` becomes NOT NULL, an empty byte string where a report has none
(``OptionalBits``: Python still sees None), so a one-value report's row needs
no null bitmap; with nine columns that bitmap took its header from 24 to 32
bytes.  The rows left NULL are set empty by the same statement that adds the
NOT NULL (the check constraint is replaced around it).  Then the table is rebuilt by ``surveys.collection.partitioning.rebuild`` with the
partitions it has (or as the plain table it is): the rebuild orders the
columns by alignment, which the earlier migrations had left padded (a 4-byte
column before 8-byte ones, the partition key added last).  Together one-value
reports take 101.6 bytes per row instead of 115.9 (docs/architecture.md, "How
reports are stored").  The table is locked for the copy, as in 0013.
Reversible: going back makes ``bits`` nullable again and sets the empty ones
to NULL (the column order stays packed).
"""

import django.db.models
from django.db import migrations, models

import surveys.collection.models
from surveys.collection import partitioning


def pack_columns(apps, schema_editor):
    """Rebuild the report table with its columns packed."""
    connection = schema_editor.connection
    model = apps.get_model("collection", "Report")
    table = model._meta.db_table
    count = len(partitioning.partitions(connection, table)) or None
    partitioning.rebuild(schema_editor, model, count)


def empty_bits_to_null(apps, schema_editor):
    """Going back: the empty ``bits`` of one-value reports become NULL."""
    model = apps.get_model("collection", "Report")
    table = schema_editor.quote_name(model._meta.db_table)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET bits = NULL WHERE length(bits) = 0")  # noqa: S608


class Migration(migrations.Migration):
    dependencies = [
        ("authoring", "0011_survey_languages"),
        ("collection", "0015_report_question_do_nothing"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="report",
            name="report_value_or_bits",
        ),
        migrations.RunPython(migrations.RunPython.noop, empty_bits_to_null),
        migrations.AlterField(
            model_name="report",
            name="bits",
            field=surveys.collection.models.OptionalBits(blank=True, default=None),
        ),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=django.db.models.Q(
                    django.db.models.Q(("bits", b""), ("value__isnull", False)),
                    django.db.models.Q(
                        ("value__isnull", True),
                        django.db.models.Q(("bits", b""), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="report_value_or_bits",
            ),
        ),
        migrations.RunPython(pack_columns, migrations.RunPython.noop),
    ]
