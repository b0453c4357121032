"""A submission's release is read from its survey's results snapshot (its id
at or below ``ResultSnapshot.last_submission_id``), not from a flag of its
own: a release then writes one row instead of one per submission.  The flag
is dropped after the analysis migrations that filled it have run."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("collection", "0021_answers_carry_survey"),
        ("analysis", "0015_last_submission_id"),
    ]

    operations = [migrations.RemoveField(model_name="submission", name="released")]
