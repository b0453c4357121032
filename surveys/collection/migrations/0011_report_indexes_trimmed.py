"""Three indexes fewer on reports, none that a query uses.

* ``question_id`` and ``submission_id`` lose their own indexes: the
  ``(question, id)`` index and the unique ``(submission, question)`` index lead
  with them and serve every lookup, join and cascade by them.
* ``public_id`` stays unique, by a constraint added first (so it is never
  unguarded), and loses the pattern-matching ``_like`` index that PostgreSQL
  gets for a ``unique=True`` text column (nothing searches report ids with
  LIKE).

Each report then writes three index entries fewer.  On a large table, adding
the constraint builds its index once, under the migration's lock.
"""

import django.db.models.deletion
from django.db import migrations, models

import surveys.collection.tokens


class Migration(migrations.Migration):
    dependencies = [
        ("authoring", "0010_question_grid"),
        ("collection", "0010_report_payload_dropped"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="report",
            constraint=models.UniqueConstraint(
                fields=("public_id",), name="report_public_id"
            ),
        ),
        migrations.AlterField(
            model_name="report",
            name="public_id",
            field=models.CharField(
                default=surveys.collection.tokens.new_public_id, max_length=26
            ),
        ),
        migrations.AlterField(
            model_name="report",
            name="question",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="reports",
                to="authoring.question",
            ),
        ),
        migrations.AlterField(
            model_name="report",
            name="submission",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="reports",
                to="collection.submission",
            ),
        ),
    ]
