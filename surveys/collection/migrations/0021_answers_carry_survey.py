"""Unprotected answers, skips and link values carry their submission's survey.

A distributed PostgreSQL shards these tables by ``survey_id`` with the
reports; every unique key and foreign key between sharded tables must then
include it (docs/scaling.md, sections 2.2 and 7).  The column is added
nullable, filled from each row's submission, then made NOT NULL; the unique
keys get the survey as the reports' did (a submission has one survey, so
their meaning is unchanged), so does the primary key (``(id, survey_id)``
in the database, ``id`` for Django, as for reports), and the key to the
submission becomes ``(submission_id, survey_id)`` to the submission's
``(id, survey_id)``.
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery

TABLES = {
    "plainanswer": "collection_plainanswer",
    "skippedanswer": "collection_skippedanswer",
    "linkvalue": "collection_linkvalue",
}
# Why raw SQL: Django's foreign keys are one column (as in 0019).  Deferred to
# the commit, as Django's are.
ADD = (
    "ALTER TABLE {table} ADD CONSTRAINT {table}_submission_in_survey "
    "FOREIGN KEY (submission_id, survey_id) "
    "REFERENCES collection_submission (id, survey_id) "
    "DEFERRABLE INITIALLY DEFERRED"
)
DROP = "ALTER TABLE {table} DROP CONSTRAINT {table}_submission_in_survey"
# The primary key carries the survey too, as the report table's does: Django
# still treats ``id`` as the key (nothing refers to these rows by it).
PRIMARY = (
    "ALTER TABLE {table} DROP CONSTRAINT {table}_pkey, "
    "ADD CONSTRAINT {table}_pkey PRIMARY KEY ({columns})"
)


def fill_survey(apps, schema_editor):
    """Each row's survey, from its submission (one UPDATE per table)."""
    Submission = apps.get_model("collection", "Submission")
    survey = Subquery(
        Submission.objects.filter(pk=OuterRef("submission_id")).values("survey_id")[:1]
    )
    for name in TABLES:
        apps.get_model("collection", name)._base_manager.update(survey_id=survey)


def add_keys(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for table in TABLES.values():
            schema_editor.execute(ADD.format(table=table))
            schema_editor.execute(PRIMARY.format(table=table, columns="id, survey_id"))


def drop_keys(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for table in TABLES.values():
            schema_editor.execute(DROP.format(table=table))
            schema_editor.execute(PRIMARY.format(table=table, columns="id"))


def survey_field(null: bool) -> models.ForeignKey:
    return models.ForeignKey(
        null=null,
        db_index=False,
        on_delete=django.db.models.deletion.CASCADE,
        related_name="+",
        to="authoring.survey",
    )


def submission_field(related_name: str) -> models.ForeignKey:
    return models.ForeignKey(
        db_constraint=False,
        db_index=False,
        on_delete=django.db.models.deletion.CASCADE,
        related_name=related_name,
        to="collection.submission",
    )


UNIQUE = {
    "plainanswer": ("one_plain_answer_per_question", ("submission", "question")),
    "skippedanswer": ("one_skip_per_question", ("submission", "question")),
    "linkvalue": ("one_link_value_per_name", ("submission", "name")),
}
RELATED = {
    "plainanswer": "plain_answers",
    "skippedanswer": "skipped_answers",
    "linkvalue": "link_values",
}


class Migration(migrations.Migration):
    dependencies = [
        ("authoring", "0013_survey_theme"),
        ("collection", "0020_submission_released_and_invited"),
    ]

    operations = [
        *(
            migrations.AddField(
                model_name=name, name="survey", field=survey_field(null=True)
            )
            for name in TABLES
        ),
        migrations.RunPython(fill_survey, migrations.RunPython.noop),
        *(
            migrations.AlterField(
                model_name=name, name="survey", field=survey_field(null=False)
            )
            for name in TABLES
        ),
        *(
            migrations.RemoveConstraint(model_name=name, name=UNIQUE[name][0])
            for name in TABLES
        ),
        *(
            migrations.AddConstraint(
                model_name=name,
                constraint=models.UniqueConstraint(
                    fields=(*UNIQUE[name][1], "survey"), name=UNIQUE[name][0]
                ),
            )
            for name in TABLES
        ),
        *(
            migrations.AlterField(
                model_name=name,
                name="submission",
                field=submission_field(RELATED[name]),
            )
            for name in TABLES
        ),
        migrations.RunPython(add_keys, drop_keys),
    ]
