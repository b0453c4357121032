"""Record a release's data for the upgrade test (docs/operations.md, "Releases").

    DATABASE_URL=<empty db> python -m tests.surveys.operations.release_fixture X.Y.Z

migrates the database, fills it with :func:`realistic_data.populate` (this
version's own services) and writes ``releases/X.Y.Z.json`` next to this file:
the release, every app's latest migration (the release's migration state) and
every row of the project's apps as Django's JSON serializer writes them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import django

RELEASES = Path(__file__).resolve().parent / "releases"


def project_models() -> list:
    """The models of the project's own apps (``surveys.*``), current state."""
    from django.apps import apps

    return [
        model
        for config in apps.get_app_configs()
        if config.name.startswith("surveys.")
        for model in config.get_models()
    ]


def record(release: str) -> Path:
    """Write ``releases/<release>.json`` from the database; returns its path."""
    # Imported here: Django is set up only in __main__ below.
    from django.core import serializers
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    from tests.surveys.operations.realistic_data import populate

    call_command("migrate", "--noinput", verbosity=0)
    if any(model.objects.exists() for model in project_models()):
        raise SystemExit("release_fixture: the database is not empty; use a new one")
    populate()
    loader = MigrationLoader(connection)
    migrations = dict(sorted(loader.graph.leaf_nodes()))
    assert set(migrations.items()) <= loader.applied_migrations.keys()
    objects = [
        obj
        for model in project_models()
        for obj in json.loads(
            serializers.serialize("json", model._base_manager.order_by("pk"))
        )
    ]
    path = RELEASES / f"{release}.json"
    RELEASES.mkdir(exist_ok=True)
    with path.open("w") as out:  # one object per line: reviewable diffs
        out.write(f'{{"release": {json.dumps(release)},\n')
        out.write(f' "migrations": {json.dumps(migrations)},\n "objects": [\n')
        out.write(",\n".join(json.dumps(obj, sort_keys=True) for obj in objects))
        out.write("\n]}\n")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(
            "usage: python -m tests.surveys.operations.release_fixture X.Y.Z"
        )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    django.setup()
    print(record(sys.argv[1]))
