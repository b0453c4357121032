"""One PostgreSQL cluster and one migrated template per run, for all its xdist workers.

Every worker of ``pytest -n 2`` needs a PostgreSQL and a migrated test
database.  Starting a cluster (``initdb``) and running every migration cost a
few CPU-seconds each, so the first worker to need them makes them and the
others reuse them: the cluster is started once, the migrations run once, into
a template database, and each worker's test database is a copy of that
template (``CREATE DATABASE ... TEMPLATE``: PostgreSQL copies the files).
The controller (the pytest process that started the workers) removes the
cluster, or on a server given by ``TEST_DATABASE_URL`` drops the template,
when the run ends (``remove``).

The workers find each other through a directory the controller makes for the
run and hands to each one (``workerinput``); a lock on a file in it orders
them.  Without xdist nothing here is used: the session starts a cluster of its
own and migrates its own test database.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# The key of the run's directory in each worker's ``workerinput``.
KEY = "deniable_shared_services"
CLUSTER = "cluster.json"
TEMPLATE = "template.json"


def shared_directory(config: Any) -> Path | None:
    """The run's directory on an xdist worker, else None (no sharing)."""
    given = getattr(config, "workerinput", {}).get(KEY)
    return Path(given) if given else None


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold the run's lock: one worker at a time makes or reads what is shared."""
    with (directory / "lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_postgres_url(directory: Path, start: Callable[[], Any]) -> str:
    """The URL of the run's cluster, started by ``start()`` if no worker did yet.

    ``start`` returns a started ``OwnPostgres``; its directory and port are
    written down for the workers after this one and for ``remove``.
    """
    record = directory / CLUSTER
    with locked(directory):
        if not record.exists():
            cluster = start()
            record.write_text(
                json.dumps(
                    {
                        "url": cluster.url("deniable"),
                        "root": str(cluster.root),
                        "port": cluster.port,
                    }
                )
            )
        return json.loads(record.read_text())["url"]


def _quoted(connection, name: str) -> str:
    return connection.ops.quote_name(name)


def create_from_template(creation, directory: Path, worker: str) -> Callable[..., str]:
    """A ``create_test_db`` for ``creation`` (a connection's ``DatabaseCreation``)
    that migrates the run's template once and gives this worker a copy of it.

    The first worker runs Django's own ``create_test_db`` (every migration)
    under the name its settings give, closes its connection and marks the
    database not to be connected to (so autovacuum leaves it alone and
    copies never find it busy); then each worker, under the lock, copies it
    to ``<template>_<worker>`` and uses the copy.  Teardown drops the copy
    as usual (``destroy_test_db``); ``remove`` drops the template.
    """
    original = creation.create_test_db
    connection = creation.connection

    def create_test_db(
        verbosity: int = 1,
        autoclobber: bool = False,
        serialize: bool = True,
        keepdb: bool = False,
    ) -> str:
        record = directory / TEMPLATE
        with locked(directory):
            if record.exists():
                template = json.loads(record.read_text())["name"]
            else:
                template = original(
                    verbosity=verbosity,
                    autoclobber=autoclobber,
                    serialize=False,
                    keepdb=keepdb,
                )
                connection.close()
                with connection._nodb_cursor() as cursor:
                    cursor.execute(
                        f"ALTER DATABASE {_quoted(connection, template)} "
                        "WITH ALLOW_CONNECTIONS false"
                    )
                record.write_text(
                    json.dumps({"name": template, "server": dict(_server(connection))})
                )
            copy = f"{template}_{worker}"
            _copy(connection, template, copy)
        connection.settings_dict["NAME"] = copy
        from django.conf import settings

        settings.DATABASES[connection.alias]["NAME"] = copy
        connection.close()
        if serialize:
            connection._test_serialized_contents = creation.serialize_db_to_string()
        return copy

    return create_test_db


def _server(connection) -> Iterator[tuple[str, Any]]:
    """How to reach the server (for ``remove``), without the database's name."""
    params = connection.settings_dict
    yield "host", params.get("HOST") or "127.0.0.1"
    yield "port", int(params.get("PORT") or 5432)
    yield "user", params.get("USER") or "postgres"
    yield "password", params.get("PASSWORD") or ""


def _copy(connection, template: str, copy: str, attempts: int = 5) -> None:
    """``CREATE DATABASE copy TEMPLATE template``, again if the template was busy."""
    statement = (
        f"CREATE DATABASE {_quoted(connection, copy)} "
        f"TEMPLATE {_quoted(connection, template)}"
    )
    for attempt in range(attempts):
        try:
            with connection._nodb_cursor() as cursor:
                cursor.execute(statement)
            return
        except Exception:
            if attempt == attempts - 1:
                raise
            time.sleep(0.5)


def remove(directory: Path) -> None:
    """At the end of the run (the controller): stop and delete the cluster the
    workers started, or drop the template they made on a given server, then
    the run's directory."""
    cluster = directory / CLUSTER
    template = directory / TEMPLATE
    try:
        if cluster.exists():
            from surveys.embedded_postgres import Cluster

            made = json.loads(cluster.read_text())
            Cluster(Path(made["root"]), listen="127.0.0.1", port=made["port"]).remove()
        elif template.exists():
            _drop(json.loads(template.read_text()))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _drop(template: dict[str, Any]) -> None:
    """Drop the run's template database on the server given to the run."""
    import psycopg
    from psycopg import sql

    server = template["server"]
    with psycopg.connect(
        host=server["host"],
        port=server["port"],
        user=server["user"],
        password=server["password"] or None,
        dbname="postgres",
        autocommit=True,
    ) as db:
        db.execute(
            sql.SQL("DROP DATABASE IF EXISTS {}").format(
                sql.Identifier(template["name"])
            )
        )


def worker_name() -> str:
    """This xdist worker's id (``gw0``, ``gw1``...)."""
    return os.environ.get("PYTEST_XDIST_WORKER", "gw")
