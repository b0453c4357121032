"""Reports carry their survey (the partition key of collection 0013).

``survey_id`` is filled from each report's submission in one statement, then
made NOT NULL; the two unique constraints gain it (a partitioned table's unique
keys must include the partition key).  A submission belongs to one survey, so
"one report per (submission, question)" keeps its meaning; report public ids
become unique per survey (128 random bits: a repeat anywhere is as unlikely).

Reversible: going back drops the column and restores the constraints.  On a
large table the fill rewrites every row once, under the migration's lock.
"""

import django.db.models.deletion
from django.db import migrations, models


def fill_survey_ids(apps, schema_editor):
    """Each report's ``survey_id`` from its submission."""
    Report = apps.get_model("collection", "Report")
    Submission = apps.get_model("collection", "Submission")
    Report._default_manager.update(
        survey_id=models.Subquery(
            Submission._default_manager.filter(pk=models.OuterRef("submission_id"))
            .values("survey_id")[:1]
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("authoring", "0010_question_grid"),
        ("collection", "0011_report_indexes_trimmed"),
    ]

    operations = [
        migrations.AddField(
            model_name="report",
            name="survey",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="authoring.survey",
            ),
        ),
        migrations.RunPython(fill_survey_ids, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="report",
            name="survey",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="authoring.survey",
            ),
        ),
        migrations.RemoveConstraint(
            model_name="report", name="one_report_per_question"
        ),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.UniqueConstraint(
                fields=("submission", "question", "survey"),
                name="one_report_per_question",
            ),
        ),
        migrations.RemoveConstraint(model_name="report", name="report_public_id"),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.UniqueConstraint(
                fields=("survey", "public_id"), name="report_public_id"
            ),
        ),
    ]
