from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("collection", "0003_skipped_answers"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="is_test",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="report",
            name="is_test",
            field=models.BooleanField(default=False),
        ),
        migrations.AlterModelOptions(
            name="report",
            options={"default_manager_name": "all_objects", "ordering": ["id"]},
        ),
        migrations.AlterModelManagers(
            name="report",
            managers=[("all_objects", models.Manager())],
        ),
    ]
