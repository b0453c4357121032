"""The JSON ``payload`` of reports is dropped: every report is in ``value`` or
``bits`` (converted by 0009), exactly one of them, which a constraint keeps."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("collection", "0009_report_payloads_converted"),
    ]

    operations = [
        migrations.RemoveField(model_name="report", name="payload"),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=(
                    models.Q(value__isnull=False, bits__isnull=True)
                    | models.Q(value__isnull=True, bits__isnull=False)
                ),
                name="report_value_or_bits",
            ),
        ),
    ]
