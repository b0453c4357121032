"""Shared fixtures: the session's own services, and subprocesses on loopback.

Services (docs/testing.md, section 7): the session runs on a PostgreSQL
cluster and a Redis server of its own, started on free loopback ports when a
test first needs them and removed at the end, unless ``TEST_DATABASE_URL`` /
``TEST_REDIS_URL`` name servers to use instead.  On a given PostgreSQL the
test database's name is unique to the run (and to the xdist worker), so two
runs never replace each other's; a given Redis is never flushed.  Plain
``pytest`` therefore never touches the machine's shared PostgreSQL or Redis
data.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest
from hypothesis import settings as hypothesis_settings

from tests import worker_services

# Hypothesis's per-example deadline (200 ms) measures the machine, not the
# code: on a shared two-core machine a busy neighbour made a pure-arithmetic
# property test miss it.  Speed belongs in benchmarks (docs/testing.md).
hypothesis_settings.register_profile("deniable", deadline=None)
hypothesis_settings.load_profile("deniable")

if TYPE_CHECKING:
    from tests.own_servers import OwnRedis

# Each tier's time against its allowance, printed at the end of every run.
pytest_plugins = ("tests.tier_times",)
T = TypeVar("T")

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
VENV_BIN = Path(PYTHON).parent
SYSTEM = ROOT / "tests" / "system"
BROWSER = SYSTEM / "browser"
TIERS_OUTSIDE_THE_FAST_LANE = ("servers", "browser", "statistical", "sweeps")
# A deployment's services: with these set, in-process tests would send tasks to
# that broker and keep (and clear) their cache in that Redis.
DEPLOYMENT_SERVICES = ("CACHE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")
EXPORT_ROOT = ""  # the session's export directory (pytest_configure)
# The directory the xdist workers of this run share services through (made by
# the controller for its first worker; tests/worker_services.py).
RUN_DIRECTORY = ""


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run with a deployment's Redis configured (nothing is touched).

    The servers the tests start advance results snapshots with every new
    submission, as tests/settings.py does in process, unless a test sets its
    own batch size.  Export files go to a directory of the session's own
    (removed at the end), never to the checkout's ``var/exports``.
    """
    os.environ.setdefault("SNAPSHOT_MIN_NEW_SUBMISSIONS", "1")
    global EXPORT_ROOT
    EXPORT_ROOT = tempfile.mkdtemp(prefix="deniable-test-exports-")
    os.environ["EXPORT_ROOT"] = EXPORT_ROOT
    with contextlib.suppress(ImportError):
        from django.conf import settings

        if settings.configured:  # pytest-django loaded them before this hook
            settings.EXPORT_ROOT = Path(EXPORT_ROOT)
    configured = [name for name in DEPLOYMENT_SERVICES if os.environ.get(name)]
    if configured:
        raise pytest.UsageError(
            f"set, and meant for a deployment's Redis: {' '.join(configured)}. "
            "The tests start a Redis of their own (TEST_REDIS_URL gives them "
            "one instead); unset these to run them (docs/testing.md, section 7)."
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's export directory (made in ``pytest_configure``),
    and on the xdist controller what its workers shared."""
    if EXPORT_ROOT:
        shutil.rmtree(EXPORT_ROOT, ignore_errors=True)
    if RUN_DIRECTORY:
        worker_services.remove(Path(RUN_DIRECTORY))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """Hand each xdist worker the run's directory: the workers start one
    PostgreSQL and migrate one template for all (tests/worker_services.py)."""
    global RUN_DIRECTORY
    if not RUN_DIRECTORY:
        RUN_DIRECTORY = tempfile.mkdtemp(prefix="deniable-run-")
    node.workerinput[worker_services.KEY] = RUN_DIRECTORY


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tiers before ``-m`` selects (docs/testing.md, section 7).

    Every test under tests/system is ``servers``, and under tests/system/browser
    also ``browser``; every ``servers``, ``browser``, ``statistical`` or
    ``sweeps`` test is also ``slow``, so ``-m "not slow"`` is the fast lane.
    """
    for item in items:
        if SYSTEM in item.path.parents:
            item.add_marker(pytest.mark.servers)
        if BROWSER in item.path.parents:
            item.add_marker(pytest.mark.browser)
        if any(item.get_closest_marker(tier) for tier in TIERS_OUTSIDE_THE_FAST_LANE):
            item.add_marker(pytest.mark.slow)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def clean_env(**overrides: str) -> dict[str, str]:
    """The current environment without Deniable's settings, plus ``overrides``.

    Servers started with it run the project's settings (``surveys.settings``).
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if key
        not in {
            "DJANGO_SETTINGS_MODULE",  # tests/settings.py is the tests' own
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            "CELERY_RESULT_BACKEND",
            "DENIABLE_PRODUCTION",
            "DEBUG",
            "SECRET_KEY",
            "ALLOWED_HOSTS",
            "EMAIL_URL",
        }
    }
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(overrides)
    return env


def run_manage(*args: str, env: dict[str, str], timeout: float = 120):
    """Run ``python manage.py ARGS`` in a subprocess and return the completed run."""
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


SETTINGS_MODULES = (
    "surveys.settings",
    "surveys.settings.internal",
    "surveys.settings.jobs",
)


def project_settings(**overrides: str) -> dict[str, object]:
    """The settings a process started with ``clean_env(**overrides)`` loads.

    ``surveys.settings`` is evaluated afresh in this process under exactly that
    environment, as ``manage.py`` would at start-up, and its upper-case names
    are returned; a refusal raises here what start-up would raise.  Afterwards
    the environment and the modules already imported are put back, so the
    tests' own settings never change.  A second of CPU cheaper per case than
    ``run_manage``; keep that for what needs Django set up (system checks).
    """
    import importlib

    saved_env = dict(os.environ)
    saved_modules = {
        name: sys.modules.pop(name) for name in SETTINGS_MODULES if name in sys.modules
    }
    package = sys.modules["surveys"]
    saved_attribute = package.__dict__.get("settings")
    try:
        os.environ.clear()
        os.environ.update(clean_env(**overrides))
        module = importlib.import_module("surveys.settings")
        return {name: value for name, value in vars(module).items() if name.isupper()}
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        for name in SETTINGS_MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved_modules)
        if saved_attribute is not None:
            package.settings = saved_attribute


def wait_for_http(url: str, timeout: float = 60) -> bytes:
    """Poll ``url`` until it answers 200 and return the body."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310
                return response.read()
        except (urllib.error.URLError, ConnectionError, OSError) as error:
            last_error = error
            time.sleep(0.25)
    raise AssertionError(f"{url} did not answer within {timeout}s: {last_error}")


class Started:
    """A process group this test started, stopped by its own PID and nothing else."""

    def __init__(
        self, args: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT
    ):
        self.log_path = log
        self._log = log.open("w")
        self.process = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def output(self) -> str:
        self._log.flush()
        return self.log_path.read_text()

    def stop(self, timeout: float = 30) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=timeout)
        self._log.close()


@pytest.fixture
def start_process(tmp_path: Path) -> Iterator:
    """Start commands as subprocesses; every one is stopped when the test ends."""
    started: list[Started] = []

    def start(
        args: list[str],
        env: dict[str, str],
        name: str = "process",
        cwd: Path = ROOT,
    ) -> Started:
        proc = Started(args, env, tmp_path / f"{name}-{len(started)}.log", cwd)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


@pytest.fixture(scope="module")
def start_module_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """``start_process`` for servers a module's tests share: each is stopped
    after the module's last test."""
    started: list[Started] = []
    logs = tmp_path_factory.mktemp("module-services")

    def start(
        args: list[str], env: dict[str, str], name: str = "process", cwd: Path = ROOT
    ) -> Started:
        proc = Started(args, env, logs / f"{name}-{len(started)}.log", cwd)
        started.append(proc)
        return proc

    yield start
    for proc in reversed(started):
        proc.stop()


@pytest.fixture(scope="session")
def start_session_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """Start services for the whole session; each is stopped when the session ends."""
    started: list[Started] = []
    logs = tmp_path_factory.mktemp("services")

    def start(args: list[str], env: dict[str, str], name: str = "process") -> Started:
        proc = Started(args, env, logs / f"{name}-{len(started)}.log")
        started.append(proc)
        return proc

    yield start
    for proc in reversed(started):
        proc.stop()


@pytest.fixture(scope="session")
def test_postgres_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """``TEST_DATABASE_URL`` if given, else a throwaway cluster of this session's own.

    The cluster (initdb, trust auth, fsync off, loopback only) is removed when
    the session ends; the xdist workers of a run share one, which the
    controller removes (tests/worker_services.py).
    """
    given = os.environ.get("TEST_DATABASE_URL")
    if given:
        yield given
        return
    from tests.own_servers import OwnPostgres

    shared = worker_services.shared_directory(request.config)
    if shared is not None:
        # Room for two workers' concurrency tests at once.
        yield worker_services.shared_postgres_url(
            shared, lambda: OwnPostgres.on_a_free_port(max_connections=300)
        )
        return
    # Room for the concurrency tests (50 threads) next to gunicorn and workers.
    cluster = OwnPostgres.on_a_free_port(max_connections=200)
    try:
        yield cluster.url("deniable")
    finally:
        cluster.destroy()


def unique_test_database_name(base: str) -> str:
    """``test_<base>_<pid>_<random>``: no other run (or xdist worker) has it."""
    return f"test_{base}_{os.getpid()}_{secrets.token_hex(3)}"[:63]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    request: pytest.FixtureRequest, test_postgres_url: str
) -> None:
    """Point Django at the session's PostgreSQL, under a test database of the run's own.

    Overrides pytest-django's fixture of this name, which runs before the test
    database is created; ``DATABASE_URL`` (a real deployment's) is never used.
    An xdist worker's test database is a copy of the run's migrated template
    (tests/worker_services.py).
    """
    import dj_database_url
    from django.conf import settings
    from django.db import connections

    parsed = dj_database_url.parse(test_postgres_url)
    default = settings.DATABASES["default"]
    for key in ("ENGINE", "NAME", "USER", "PASSWORD", "HOST", "PORT"):
        default[key] = parsed.get(key, "")
    default["OPTIONS"] = parsed.get("OPTIONS", {})
    default.setdefault("TEST", {})["NAME"] = unique_test_database_name(parsed["NAME"])
    # A wrapper made before now (an import that asked for a feature) still
    # has the backend of the settings' DATABASE_URL: forget it.
    with contextlib.suppress(AttributeError):
        connections["default"].close()
        del connections["default"]
    shared = worker_services.shared_directory(request.config)
    if shared is not None:
        creation = connections["default"].creation
        creation.create_test_db = worker_services.create_from_template(
            creation, shared, worker_services.worker_name()
        )


def _session_database_url(django_db_blocker) -> str:
    from django.db import connection

    with django_db_blocker.unblock():
        connection.ensure_connection()
    params = connection.settings_dict
    user = params.get("USER") or "postgres"
    password = f":{params['PASSWORD']}" if params.get("PASSWORD") else ""
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{params['NAME']}"


@pytest.fixture
def test_database_url(django_db_blocker) -> str:
    """A DATABASE_URL for the database this test session uses (for subprocesses)."""
    return _session_database_url(django_db_blocker)


@pytest.fixture(scope="module")
def module_database_url(django_db_setup, django_db_blocker) -> str:
    """``test_database_url`` for a server that a module's tests share."""
    return _session_database_url(django_db_blocker)


@pytest.fixture(scope="session")
def redis_url(start_session_process) -> str:
    """``TEST_REDIS_URL`` if given, else a Redis server of this session's own.

    Shared by every test of the session and never flushed: tests keep to keys
    of their own (a unique cache ``KEY_PREFIX`` or Celery ``global_keyprefix``).
    A test that needs a Redis nobody else writes to uses ``own_redis``.
    """
    given = os.environ.get("TEST_REDIS_URL")
    if given:
        return given
    from tests.own_servers import OwnRedis

    return OwnRedis.on_a_free_port(start_session_process).url()


def redis_cache(url: str, *, prefix: str) -> dict:
    """``CACHES`` for the deployed shared cache (Django's ``RedisCache``) at
    ``url``, with fail-fast timeouts and keys of this test's own."""
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": f"test-{prefix}-{uuid.uuid4().hex}",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }


@pytest.fixture
def own_redis(start_process) -> OwnRedis:
    """A Redis server of this test's own on a free port, empty, stopped at the end."""
    from tests.own_servers import OwnRedis

    return OwnRedis.on_a_free_port(start_process)


@pytest.fixture
def browser():
    """Headless Chromium (the system's, through Playwright); the contexts the
    test opens are closed after it, the browser kept for the next browser test."""
    from tests.browser import headless_chromium

    with headless_chromium() as launched:
        yield launched


def _shared_chromium():
    """``tests.browser.SHARED`` if a test has imported it, else None."""
    module = sys.modules.get("tests.browser")
    return getattr(module, "SHARED", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """Stop the shared Chromium after a test unless the next one drives it too.

    While it runs, Playwright's event loop runs in this thread, so it is kept
    only for a browser-tier test or a test of the same module that asks for a
    browser fixture.
    """
    yield
    shared = _shared_chromium()
    if shared is not None and shared.running and not _drives_chromium(item, nextitem):
        shared.stop()


def _drives_chromium(item: pytest.Item, nextitem: pytest.Item | None) -> bool:
    if nextitem is None:
        return False
    if nextitem.get_closest_marker("browser") is not None:
        return True
    asks = {"browser", "chromium"} & set(getattr(nextitem, "fixturenames", ()))
    return nextitem.path == item.path and bool(asks)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop the shared Chromium if a run ended early (interrupted, ``-x``)."""
    shared = _shared_chromium()
    if shared is not None:
        shared.stop()


def module_rows(django_db_blocker, make: Callable[[], T]) -> Iterator[T]:
    """``make()``'s rows, kept for a module's tests and then rolled back.

    Django's ``TestCase.setUpTestData`` for pytest; in a module-scoped fixture
    write ``yield from module_rows(django_db_blocker, make)``.  A transaction
    on the test database stays open while the module's tests run (each test's
    own transaction nests inside it as a savepoint and is rolled back as
    usual) and is rolled back after the last one.  For expensive data the
    tests only read: hand each test fresh instances (``objects.get(pk=...)``)
    so an edit one test makes in memory never reaches the next.  ``make`` runs
    with the tests' MD5 password hashing (tests/surveys/conftest.py).
    """
    from django.db import transaction
    from django.test import override_settings

    md5 = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            with override_settings(PASSWORD_HASHERS=md5):
                made = make()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    try:
        yield made
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
