from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("authoring", "0007_display_logic"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="design",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
