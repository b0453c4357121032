"""Record, with each tally watermark and results snapshot, the largest
submission id it covers (``TallyWatermark.last_submission_id``): a release
then marks its batch by a range of submission ids instead of reading its
reports.  Existing rows get the largest submission with a counted report at
or below their watermark; the submissions with no protected report at or
below a snapshot's bound, which the exports already showed, are marked
released with it (a recount, ``tallies_recount``, then counts them in the
tallies too)."""

from django.db import migrations, models
from django.db.models import Max


def covered_up_to(reports, survey_id: int, watermark: int) -> int:
    # The historical model keeps only its default manager (every report).
    found = reports._default_manager.filter(
        survey_id=survey_id, id__lte=watermark, is_test=False
    ).aggregate(top=Max("submission_id"))["top"]
    return found or 0


def fill(apps, schema_editor):
    reports = apps.get_model("collection", "Report")
    submissions = apps.get_model("collection", "Submission")
    for model, field in (
        (apps.get_model("analysis", "TallyWatermark"), "last_report_id"),
        (apps.get_model("analysis", "ResultSnapshot"), "watermark"),
    ):
        for pk, survey_id, watermark in model.objects.values_list(
            "pk", "survey_id", field
        ):
            bound = covered_up_to(reports, survey_id, watermark)
            model.objects.filter(pk=pk).update(last_submission_id=bound)
            if field == "watermark":
                submissions.objects.filter(
                    survey_id=survey_id, pk__lte=bound, is_test=False
                ).update(released=True)


class Migration(migrations.Migration):
    dependencies = [
        ("analysis", "0014_mark_released_submissions"),
        ("collection", "0021_answers_carry_survey"),
    ]

    operations = [
        migrations.AddField(
            model_name="tallywatermark",
            name="last_submission_id",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="resultsnapshot",
            name="last_submission_id",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
