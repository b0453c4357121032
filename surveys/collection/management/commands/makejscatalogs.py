"""Compile the djangojs translations into the static JSON catalogs."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection import js_catalogs


class Command(BaseCommand):
    help = (
        "Compile locale/<lang>/LC_MESSAGES/djangojs.po into static/js/i18n/"
        "<lang>.json, the catalogs the page scripts load with Subresource "
        "Integrity. With --check, write nothing and fail if any is stale."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="only report catalogs that differ from their .po files",
        )

    def handle(self, *args, check: bool, **options) -> None:
        try:
            if check:
                stale = js_catalogs.stale_catalogs()
                if stale:
                    raise CommandError(
                        "stale: " + ", ".join(stale) + "; run manage.py makejscatalogs"
                    )
                self.stdout.write("The JavaScript catalogs are up to date.")
                return
            for path in js_catalogs.write_catalogs():
                self.stdout.write(f"wrote static/{path}")
        except js_catalogs.CatalogError as problem:
            raise CommandError(str(problem)) from problem
