"""Build the independent device: a folder any institution can host."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection import assets
from surveys.version import deniable_version


class Command(BaseCommand):
    help = (
        "Write the independent device (device/ with the randomizer, the wording "
        "module and the outbox beside it) into FOLDER, with FINGERPRINTS.md "
        "listing every file's SHA-384 to compare with RELEASES.md. Host the "
        "folder as static files on a site of its own and list that site's "
        "origin in the survey server's DEVICE_ORIGINS."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path, help="where to write the bundle")

    def handle(self, *args, folder: Path, **options) -> None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as problem:
            raise CommandError(f"cannot write to {folder}: {problem}") from problem
        scripts = assets.independent_bundle()
        for script in scripts:
            (folder / script.name).write_bytes(script.source)
        rows = "".join(f"| `{s.name}` | `{s.integrity}` |\n" for s in scripts)
        (folder / "FINGERPRINTS.md").write_text(
            f"# Deniable independent device {deniable_version()}\n\n"
            "| file | SHA-384 (Subresource Integrity form) |\n|---|---|\n" + rows,
            encoding="utf-8",
        )
        if assets.RELEASES_PATH.exists():
            (folder / "RELEASES.md").write_bytes(assets.RELEASES_PATH.read_bytes())
        self.stdout.write(
            f"Wrote the independent device ({len(scripts)} files) to {folder}"
        )
