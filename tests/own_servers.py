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
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psycopg
import redis
from psycopg import sql

from benchmarks.load import Mechanisms, RespondPage, Response, form_body, request
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


def _postgres_bindir() -> Path:
    found = subprocess.run(
        ["pg_config", "--bindir"], capture_output=True, text=True, check=True
    )
    return Path(found.stdout.strip())


class OwnPostgres:
    """A throwaway PostgreSQL cluster: initdb, trust auth, loopback only.

    Run as root (as in CI), the server runs as the ``postgres`` OS user, which
    PostgreSQL requires; otherwise as the current user.  The cluster lives in a
    fresh directory under the system temporary directory, removed by
    ``destroy``.
    """

    def __init__(self, port: int):
        self.port = port
        self.bindir = _postgres_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="deniable-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._as: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        try:
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust")
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        # Durability is not what these tests are about; speed is welcome.
        with (self.data / "postgresql.auto.conf").open("a") as conf:
            conf.write(
                "fsync = off\nfull_page_writes = off\nsynchronous_commit = off\n"
            )

    def _run(self, program: str, *args: str, timeout: float = 60) -> str:
        result = subprocess.run(
            [*self._as, str(self.bindir / program), *args],
            cwd=self.root,
            env={**os.environ, "LC_ALL": "C.UTF-8", "TZ": "UTC"},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if result.returncode != 0:
            raise AssertionError(
                f"{program} {' '.join(args)} failed ({result.returncode}):\n"
                f"{result.stdout}\n{result.stderr}\n{self.server_log()}"
            )
        return result.stdout

    def url(self, database: str = "postgres") -> str:
        """A ``postgres://`` URL for ``database`` on this cluster."""
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def server_log(self) -> str:
        """What the server logged so far ('' before it first started)."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def postmaster_pid(self) -> int | None:
        """The PID of this cluster's running postmaster, or None."""
        with contextlib.suppress(
            FileNotFoundError, ValueError, IndexError, ProcessLookupError
        ):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, 0)  # raises ProcessLookupError when it is gone
            return pid
        return None

    def running(self) -> bool:
        """True while the postmaster of this cluster runs."""
        return self.postmaster_pid() is not None

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
            except AssertionError:
                if attempt == attempts - 1:
                    cluster.destroy()
                    raise
                cluster.port = free_port()
        raise AssertionError("unreachable")

    def start(self, max_connections: int = 40) -> None:
        """Start the server and wait until it accepts connections."""
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} "
            f"-c max_connections={max_connections}"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
            timeout=90,
        )

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m MODE``: fast disconnects clients and shuts down."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self, name: str) -> str:
        """Create database ``name`` and return its URL."""
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(
                sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            )
        return self.url(name)

    def destroy(self) -> None:
        """Stop the server if it runs (immediately) and remove the cluster."""
        if self.running():
            with contextlib.suppress(AssertionError, subprocess.TimeoutExpired):
                self.stop("immediate")
        pid = self.postmaster_pid()
        if pid is not None:  # pg_ctl could not stop it: by its own PID, then
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)


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
