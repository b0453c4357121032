"""Mark the submissions each stored snapshot already released
(``Submission.released``): those with a counted report at or below its
watermark."""

from django.db import migrations


def mark_released(apps, schema_editor):
    snapshots = apps.get_model("analysis", "ResultSnapshot")
    submissions = apps.get_model("collection", "Submission")
    reports = apps.get_model("collection", "Report")
    for survey_id, watermark in snapshots.objects.values_list(
        "survey_id", "watermark"
    ):
        # The historical model keeps only its default manager (every report).
        covered = reports._default_manager.filter(
            survey_id=survey_id, id__lte=watermark, is_test=False
        ).values("submission_id")
        submissions.objects.filter(survey_id=survey_id, pk__in=covered).update(
            released=True
        )


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0013_joint_and_pattern_tallies"),
        ("collection", "0020_submission_released_and_invited"),
    ]

    operations = [migrations.RunPython(mark_released, migrations.RunPython.noop)]
