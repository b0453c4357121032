from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("authoring", "0008_link_fields"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="design",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
