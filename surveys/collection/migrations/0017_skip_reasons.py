from django.db import migrations, models


class Migration(migrations.Migration):
    """Skip markers say how a shown question was left unanswered: declined or
    left blank; markers stored before the device told the two apart become
    "unknown" (declined or left blank)."""

    dependencies = [
        ("collection", "0016_report_bits_not_null"),
    ]

    operations = [
        migrations.AddField(
            model_name="skippedanswer",
            name="reason",
            field=models.CharField(
                choices=[
                    ("declined", "declined (“Prefer not to answer”)"),
                    ("blank", "left blank"),
                    ("unknown", "declined or left blank (unknown)"),
                ],
                default="unknown",
                max_length=8,
            ),
            preserve_default=False,
        ),
    ]
