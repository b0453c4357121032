# Researcher-chosen bins of number questions.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0006_pilot_jobs"),
        ("authoring", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="QuestionBins",
            fields=[
                (
                    "question",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="bins",
                        serialize=False,
                        to="authoring.question",
                    ),
                ),
                ("cuts", models.JSONField()),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
        ),
    ]
