"""The report table becomes hash-partitioned by survey.

``REPORT_PARTITIONS`` partitions (16 unless set when the migration runs),
built by ``surveys.collection.partitioning.rebuild`` in the migration's one
transaction: a partitioned table is created, every row copied, the old table
dropped and the new one renamed, with its constraints, indexes and id
sequence (continued, never reused).  Reversible: going back rebuilds one plain
table the same way.  The table is locked for the copy; docs/scaling.md gives the
figures and how to change the partition count later.
"""

from django.conf import settings
from django.db import migrations

from surveys.collection import partitioning


def partition_reports(apps, schema_editor):
    """Rebuild the table in ``REPORT_PARTITIONS`` hash partitions."""
    model = apps.get_model("collection", "Report")
    partitioning.rebuild(schema_editor, model, settings.REPORT_PARTITIONS)


def unpartition_reports(apps, schema_editor):
    """Rebuild one plain table, as before this migration."""
    model = apps.get_model("collection", "Report")
    partitioning.rebuild(schema_editor, model, None)


class Migration(migrations.Migration):
    dependencies = [
        ("collection", "0012_report_survey"),
    ]

    operations = [
        migrations.RunPython(partition_reports, unpartition_reports),
    ]
