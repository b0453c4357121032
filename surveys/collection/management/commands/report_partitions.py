"""List the report table's partitions, or rebuild it with another count."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from surveys.collection import partitioning
from surveys.collection.models import Report


class Command(BaseCommand):
    help = (
        "Without options: each partition of the report table "
        "with its estimated rows and bytes. With --count N: rebuild the table "
        "in N hash partitions by survey (0: one plain table), copying every "
        "report in one transaction; reads and writes of reports wait until it "
        "commits (docs/scaling.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--count",
            type=int,
            default=None,
            help="rebuild in this many partitions, 1 to 1024 (0: unpartitioned)",
        )

    def handle(self, *args, count: int | None, **options) -> None:
        if count is not None:
            self._rebuild(count)
        table = Report._meta.db_table
        found = partitioning.partitions(connection, table)
        self.stdout.write(f"{'partition':<28} {'rows':>12} {'bytes':>14}")
        for partition in found:
            self.stdout.write(
                f"{partition.name:<28} {partition.rows:>12,} {partition.bytes:>14,}"
            )
        if found:
            rows = sum(p.rows for p in found)
            self.stdout.write(f"{len(found)} hash partitions by survey; {rows:,} rows")
        else:
            self.stdout.write(f"{table} is one plain table (not partitioned)")

    def _rebuild(self, count: int) -> None:
        try:
            partitions = (
                None if count == 0 else partitioning.check_partition_count(count)
            )
        except ValueError as error:
            raise CommandError(f"{error}, or 0 for one plain table") from error
        with transaction.atomic(), connection.schema_editor() as editor:
            partitioning.rebuild(editor, Report, partitions)
