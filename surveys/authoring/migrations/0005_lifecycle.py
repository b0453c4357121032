from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("authoring", "0004_respondent_flow"),
    ]

    operations = [
        migrations.AddField(
            model_name="survey",
            name="opens_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="survey",
            name="closes_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="survey",
            name="time_zone",
            field=models.CharField(default="UTC", max_length=64),
        ),
        migrations.AddField(
            model_name="survey",
            name="close_at_responses",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="survey",
            name="invitation_only",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="survey",
            name="archived",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="survey",
            name="notified_open",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="survey",
            name="notified_closed",
            field=models.BooleanField(default=False),
        ),
    ]
