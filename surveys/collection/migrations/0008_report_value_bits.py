"""Reports get compact columns: ``value`` (one integer) and ``bits`` (bytes).

The JSON ``payload`` becomes nullable here; 0009 converts every row and 0010
drops it (``surveys.collection.report_codec`` says which column each
mechanism uses).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("collection", "0007_submission_survey_id"),
    ]

    operations = [
        migrations.AddField(
            model_name="report",
            name="value",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="report",
            name="bits",
            field=models.BinaryField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="report",
            name="payload",
            field=models.JSONField(null=True),
        ),
    ]
