"""Upgrades: data written by every released version survives migrating to the
current code, with equal tallies and estimates (docs/operations.md, "Upgrade").

Each release's data and migration state is recorded in ``releases/X.Y.Z.json``
(``release_fixture.py``); ``upgrade.py`` replays it with Django's
MigrationExecutor on a database of a throw-away cluster.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from django.db.migrations.loader import MigrationLoader

from tests.conftest import PYTHON, ROOT, clean_env
from tests.own_servers import OwnPostgres
from tests.surveys.operations.release_fixture import RELEASES

RELEASE_FILES = sorted(RELEASES.glob("*.json"))
# The demo survey has six protected questions: five new responses fold 30 reports.
NEW_RESPONSES = {"stored": 5, "submissions_added": 5, "folded": 30}


def changelog_releases() -> set[str]:
    text = (ROOT / "CHANGELOG.md").read_text()
    return set(re.findall(r"^## \[(\d[^\]]*)\] - ", text, re.M))


def test_every_release_in_the_changelog_has_its_recorded_data():
    assert {path.stem for path in RELEASE_FILES} == changelog_releases()
    assert "0.1.0" in changelog_releases()


@pytest.mark.parametrize("path", RELEASE_FILES, ids=lambda path: path.stem)
def test_every_released_migration_is_still_in_the_migration_graph(path):
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    recorded = json.loads(path.read_text())["migrations"]
    assert recorded
    for app, name in recorded.items():
        assert (app, name) in graph.nodes, f"{app}.{name} of {path.stem} is gone"


def run_upgrade(own_postgres: OwnPostgres, name: str, release_file: Path) -> dict:
    env = clean_env(DATABASE_URL=own_postgres.create_database(name))
    run = subprocess.run(
        [PYTHON, "-m", "tests.surveys.operations.upgrade", str(release_file)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


def assert_upgraded_intact(report: dict, objects: list[dict]) -> None:
    assert report["inserted"] == dict(Counter(obj["model"] for obj in objects))
    assert report["rows_now"] == report["inserted"]
    assert report["differences"] == []
    assert report["dropped_fields"] == []
    invitations = sum(obj["model"] == "collection.invitation" for obj in objects)
    # Hashes made before they were keyed cannot be re-keyed without the tokens.
    assert report["invitation_hash_schemes"] == (
        {"sha256": invitations} if invitations else {}
    )
    assert report["verify_tallies"]["passed"], report["verify_tallies"]["output"]
    assert report["estimates_equal_after_recount"]
    assert report["keeps_working"] == NEW_RESPONSES
    after = report["verify_tallies_after_new_responses"]
    assert after["passed"], after["output"]


@pytest.mark.servers
@pytest.mark.parametrize("path", RELEASE_FILES, ids=lambda path: path.stem)
def test_data_of_a_release_survives_migrating_to_the_newest_code(own_postgres, path):
    release = json.loads(path.read_text())
    database = "upgrade_" + re.sub(r"\W", "_", path.stem)

    report = run_upgrade(own_postgres, database, path)

    assert report["release"] == release["release"]
    assert report["migrated_from"] == release["migrations"]
    assert_upgraded_intact(report, release["objects"])


@pytest.mark.servers
def test_rows_written_before_a_real_migration_survive_it(own_postgres, tmp_path):
    """The harness across a migration that changes a table: authoring 0002
    added Question.max_selections.  The 0.1.0 data without that field is
    written at authoring 0001, before the analysis app (which needs 0002)
    existed, so without tallies, and migrated forward."""
    release = json.loads((RELEASES / "0.1.0.json").read_text())
    release["release"] = "0.1.0 at authoring 0001"
    release["migrations"]["authoring"] = "0001_initial"
    del release["migrations"]["analysis"]
    release["objects"] = [
        obj for obj in release["objects"] if not obj["model"].startswith("analysis.")
    ]
    for obj in release["objects"]:
        if obj["model"] == "authoring.question":
            del obj["fields"]["max_selections"]
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps(release))

    report = run_upgrade(own_postgres, "upgrade_authoring_0001", earlier)

    assert report["migrated_from"]["authoring"] == "0001_initial"
    assert report["migrated_to"]["authoring"] != "0001_initial"
    assert "analysis" in report["migrated_to"]
    assert_upgraded_intact(report, release["objects"])
