"""Print the installed Deniable version: ``manage.py deniable_version``."""

from django.core.management.base import BaseCommand

from surveys.version import deniable_version


class Command(BaseCommand):
    help = "Print the installed Deniable version (pyproject.toml's version)."

    def handle(self, *args, **options) -> None:
        self.stdout.write(deniable_version())
