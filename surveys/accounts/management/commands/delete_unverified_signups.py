"""manage.py delete_unverified_signups [--dry-run] — remove sign-ups that can
never be used: their address was never confirmed and the emailed link has
expired (surveys.accounts.signup.unverified_expired).  Run it daily (cron or
a scheduler); it frees the usernames and addresses they held."""

from django.core.management.base import BaseCommand

from surveys.accounts import signup


class Command(BaseCommand):
    help = (
        "Delete accounts made by sign-up whose address was never confirmed "
        "before the emailed link expired."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="List them; delete nothing."
        )

    def handle(self, *args, dry_run: bool, **options):
        if dry_run:
            names = sorted(
                signup.unverified_expired().values_list("username", flat=True)
            )
        else:
            names = signup.unverified_delete()
        verb = "Would delete" if dry_run else "Deleted"
        self.stdout.write(f"{verb} {len(names)} unverified sign-up(s).")
        for name in names:
            self.stdout.write(f"  {name}")
