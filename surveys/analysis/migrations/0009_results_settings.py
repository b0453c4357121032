# A survey's choice of consistent estimate.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0008_regression_weighted_jobs"),
        ("authoring", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="ResultsSettings",
            fields=[
                (
                    "survey",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="results_settings",
                        serialize=False,
                        to="authoring.survey",
                    ),
                ),
                (
                    "consistent_method",
                    models.CharField(
                        choices=[
                            ("norm-sub", "Projection onto the simplex (Norm-Sub)"),
                            (
                                "mle",
                                "Maximum likelihood through the randomization (EM)",
                            ),
                        ],
                        default="norm-sub",
                        max_length=16,
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
        ),
    ]
