from django.db import migrations, models


class Migration(migrations.Migration):
    """Skip tallies count declined and left-blank questions apart; the skips
    counted so far were stored before the device told the two apart, so they
    become "unknown" (declined or left blank), as their markers do."""

    dependencies = [
        ("analysis", "0011_answer_tallies"),
        ("collection", "0017_skip_reasons"),
    ]

    operations = [
        migrations.RenameField(
            model_name="skiptally", old_name="count", new_name="unknown"
        ),
        migrations.AddField(
            model_name="skiptally",
            name="declined",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="skiptally",
            name="blank",
            field=models.BigIntegerField(default=0),
        ),
    ]
