"""Unlinkable respondents: no key, time or sequence relates an invitation to a submission.

- ``Submission.invitation`` (the one-to-one) is dropped; ``Invitation.used_at``
  becomes the boolean ``used``.
- Invitation token hashes become keyed (HMAC-SHA256).  Existing hashes cannot
  be re-keyed without the tokens, which were never stored: they are marked
  ``hash_scheme = "sha256"`` and looked up by plain SHA-256 until their token is
  next presented, when they are re-keyed.  With the link to submissions gone,
  a plain hash relates its token to the ``used`` flag only.
- Submissions and reports get random public identifiers, and submissions the
  hash of a random receipt code (links signed with SECRET_KEY stop working:
  nobody was shown a code for the existing rows).
- ``received_at`` is truncated to ``RECEIVED_AT_GRANULARITY``.
"""

from django.db import migrations, models

import surveys.collection.models
import surveys.collection.tokens

BATCH = 2000


def used_from_used_at(apps, schema_editor):
    Invitation = apps.get_model("collection", "Invitation")
    Invitation.objects.filter(used_at__isnull=False).update(used=True)


def used_at_from_used(apps, schema_editor):
    # Going back: the time was not kept; a used invitation gets its creation time.
    Invitation = apps.get_model("collection", "Invitation")
    for invitation in Invitation.objects.filter(used=True).iterator():
        invitation.used_at = invitation.created_at
        invitation.save(update_fields=["used_at"])


def _fill(model, assign, fields):
    pending = []
    for row in model.objects.order_by("pk").iterator(chunk_size=BATCH):
        assign(row)
        pending.append(row)
        if len(pending) >= BATCH:
            model.objects.bulk_update(pending, fields)
            pending = []
    if pending:
        model.objects.bulk_update(pending, fields)


def random_identifiers(apps, schema_editor):
    Submission = apps.get_model("collection", "Submission")
    Report = apps.get_model("collection", "Report")

    def submission(row):
        row.public_id = surveys.collection.tokens.new_public_id()
        row.receipt_hash = surveys.collection.models.unknown_receipt_hash()
        row.received_at = surveys.collection.models.coarse_time(row.received_at)

    def report(row):
        row.public_id = surveys.collection.tokens.new_public_id()

    _fill(Submission, submission, ["public_id", "receipt_hash", "received_at"])
    _fill(Report, report, ["public_id"])


class Migration(migrations.Migration):

    dependencies = [
        ("collection", "0001_initial"),
    ]

    operations = [
        # Invitations: used or not, and how the hash was made.
        migrations.AddField(
            model_name="invitation",
            name="used",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="invitation",
            name="hash_scheme",
            field=models.CharField(
                choices=[
                    ("hmac-sha256", "HMAC-SHA256 under a key derived from SECRET_KEY"),
                    ("sha256", "plain SHA-256 (made before 0.2)"),
                ],
                default="sha256",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="invitation",
            name="hash_scheme",
            field=models.CharField(
                choices=[
                    ("hmac-sha256", "HMAC-SHA256 under a key derived from SECRET_KEY"),
                    ("sha256", "plain SHA-256 (made before 0.2)"),
                ],
                default="hmac-sha256",
                max_length=16,
            ),
        ),
        migrations.RunPython(used_from_used_at, used_at_from_used),
        migrations.RemoveField(model_name="submission", name="invitation"),
        migrations.RemoveField(model_name="invitation", name="used_at"),
        # Random public identifiers and receipt codes; a coarse arrival time.
        migrations.AddField(
            model_name="submission",
            name="public_id",
            field=models.CharField(max_length=26, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="receipt_hash",
            field=models.CharField(max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="report",
            name="public_id",
            field=models.CharField(max_length=26, null=True),
        ),
        migrations.RunPython(random_identifiers, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="submission",
            name="public_id",
            field=models.CharField(
                default=surveys.collection.tokens.new_public_id,
                max_length=26,
                unique=True,
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="receipt_hash",
            field=models.CharField(
                default=surveys.collection.models.unknown_receipt_hash,
                max_length=64,
                unique=True,
            ),
        ),
        migrations.AlterField(
            model_name="report",
            name="public_id",
            field=models.CharField(
                default=surveys.collection.tokens.new_public_id,
                max_length=26,
                unique=True,
            ),
        ),
        migrations.AlterField(
            model_name="submission",
            name="received_at",
            field=models.DateTimeField(
                db_index=True, default=surveys.collection.models.received_now
            ),
        ),
    ]
