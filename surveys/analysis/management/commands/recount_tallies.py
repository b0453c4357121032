"""Recompute tallies from scratch, then the results snapshots:
``manage.py recount_tallies [--survey ID]``."""

from django.core.management.base import BaseCommand, CommandError

from surveys.analysis.tallies import services, snapshots
from surveys.authoring.models import Survey


class Command(BaseCommand):
    help = (
        "Recount every survey's tallies (or one survey's) from its reports, "
        "then recompute its results snapshot."
    )

    def add_arguments(self, parser):
        parser.add_argument("--survey", type=int, help="only this survey id")

    def handle(self, *args, survey=None, **options):
        if survey is not None and not Survey.objects.filter(pk=survey).exists():
            raise CommandError(f"survey {survey} does not exist; allowed: a survey id")
        ids = (
            [survey]
            if survey is not None
            else list(Survey.objects.order_by("pk").values_list("pk", flat=True))
        )
        for survey_id in ids:
            counted = services.tallies_recount(survey_id=survey_id)
            # An operator's recount: the snapshot is recomputed from scratch,
            # batching aside (its watermark cannot have moved back).
            snapshot = snapshots.snapshot_refresh(survey_id=survey_id, force=True)
            self.stdout.write(
                f"survey {survey_id}: {counted} reports counted; results "
                f"snapshot v{snapshot.version} at report {snapshot.watermark}"
            )
