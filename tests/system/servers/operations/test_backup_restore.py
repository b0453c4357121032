"""The backup and restore of docs/operations.md, run exactly as documented on a
throw-away PostgreSQL cluster: the restored database equals the original."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from tests.conftest import PYTHON, ROOT, clean_env, run_manage
from tests.own_servers import OwnPostgres
from tests.surveys.operations.documented import shell_blocks

pytestmark = pytest.mark.servers


def run_shell(
    script: str, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def tables(url: str) -> dict[str, list[str]]:
    """Every table of the public schema: its rows as text, sorted."""
    with psycopg.connect(url) as db:
        names = [
            name
            for (name,) in db.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            )
        ]
        return {
            name: sorted(
                row
                for (row,) in db.execute(
                    sql.SQL("SELECT t::text FROM {} AS t").format(sql.Identifier(name))
                )
            )
            for name in sorted(names)
        }


def sequences(url: str) -> dict[str, int | None]:
    with psycopg.connect(url) as db:
        return dict(
            db.execute(
                "SELECT sequencename, last_value FROM pg_sequences "
                "WHERE schemaname = 'public'"
            ).fetchall()
        )


def tallies(url: str) -> list[tuple]:
    with psycopg.connect(url) as db:
        return db.execute(
            "SELECT question_id, spec_revision, n, stat::text FROM analysis_tally "
            "ORDER BY question_id, spec_revision"
        ).fetchall()


@pytest.fixture(scope="module")
def original(own_postgres: OwnPostgres) -> str:
    """A database migrated as the README says and filled with realistic data."""
    url = own_postgres.create_database("deniable")
    env = clean_env(DATABASE_URL=url)
    migrated = run_manage("migrate", "--noinput", env=env)
    assert migrated.returncode == 0, migrated.stderr
    filled = subprocess.run(
        [PYTHON, "-m", "tests.surveys.operations.realistic_data"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert filled.returncode == 0, filled.stderr
    rows = json.loads(filled.stdout.splitlines()[-1])
    assert rows["collection.report"] > 1000 and rows["authoring.specrevision"] > 20
    return url


def documented_env(own_postgres: OwnPostgres, original: str) -> dict[str, str]:
    """The application's DATABASE_URL and the RESTORE_URL the docs ask for, with
    the cluster's own PostgreSQL client programs first on PATH."""
    env = clean_env(
        DATABASE_URL=original, RESTORE_URL=own_postgres.url("deniable_restored")
    )
    env["PATH"] = f"{own_postgres.bindir}{os.pathsep}{env['PATH']}"
    return env


@dataclass(frozen=True)
class Restored:
    """The restored database's URL and its contents right after the restore."""

    url: str
    tables: dict[str, list[str]]
    sequences: dict[str, int | None]
    original_tables: dict[str, list[str]]
    original_sequences: dict[str, int | None]


@pytest.fixture(scope="module")
def restored(own_postgres: OwnPostgres, original: str, tmp_path_factory) -> Restored:
    """The original, backed up and restored with the documented commands."""
    (backup,) = shell_blocks("Back up")[:1]
    (restore,) = shell_blocks("Restore")[:1]
    workdir = tmp_path_factory.mktemp("backups")
    env = documented_env(own_postgres, original)
    done = run_shell(f"{backup}\n{restore}", env, workdir)
    assert done.returncode == 0, done.stderr
    (dump,) = workdir.glob("deniable-*.dump")
    assert dump.stat().st_size > 0
    url = env["RESTORE_URL"]
    return Restored(
        url, tables(url), sequences(url), tables(original), sequences(original)
    )


def test_restored_database_has_every_table_with_equal_contents(restored):
    assert set(restored.tables) == set(restored.original_tables)
    assert {"collection_report", "analysis_tally", "django_migrations"} <= set(
        restored.tables
    )
    for name, rows in restored.original_tables.items():
        assert restored.tables[name] == rows, name


def test_restored_sequences_continue_where_the_original_stopped(restored):
    assert restored.sequences == restored.original_sequences


def test_documented_check_passes_on_the_restored_copy(own_postgres, original, restored):
    (_, check) = shell_blocks("Restore")[:2]
    checked = run_shell(check, documented_env(own_postgres, original), ROOT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("tallies equal a recount") == 4


def test_recount_gives_the_same_tallies_in_both(original, restored):
    for url in (original, restored.url):
        counted = run_manage("recount_tallies", env=clean_env(DATABASE_URL=url))
        assert counted.returncode == 0, counted.stderr
    assert tallies(restored.url) == tallies(original)
    assert len(tallies(original)) > 20


def test_upgrade_rehearsal_runs_on_the_restored_copy(own_postgres, original, restored):
    (rehearsal,) = shell_blocks("Upgrade")[:1]
    env = documented_env(own_postgres, original)
    rehearsed = run_shell(rehearsal, env, ROOT)
    assert rehearsed.returncode == 0, rehearsed.stdout + rehearsed.stderr
    assert "No migrations to apply." in rehearsed.stdout
    assert rehearsed.stdout.count("tallies equal a recount") == 4


def test_restoring_over_an_existing_database_fails_and_changes_nothing(
    own_postgres, original, restored, tmp_path
):
    (backup,) = shell_blocks("Back up")[:1]
    (restore,) = shell_blocks("Restore")[:1]
    before = tables(restored.url)
    env = documented_env(own_postgres, original)
    failed = run_shell(f"{backup}\n{restore}", env, tmp_path)
    assert failed.returncode != 0
    assert 'database "deniable_restored" already exists' in failed.stderr
    assert tables(restored.url) == before
