"""README command 1 (scripts/serve) on a fresh checkout: the embedded PostgreSQL.

A copy of the checkout (its files, not its ``var/``; the virtual environment
is linked) is served twice, as a newcomer would: the first run creates the
cluster in ``var/postgres``, migrates and loads the demo, and every page of
the demo survey answers over HTTP, the researcher's after signing in as the
demo user (the suite's other tests use their own clusters, so this is where
the development path itself is proven).  Ctrl-C stops the server and the
cluster; the second run reuses both and does not duplicate the demo.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from surveys.embedded_postgres import Cluster
from tests.conftest import ROOT, Started, clean_env, free_port, wait_for_http

# Never copied: the environment (linked instead), local state and caches.
NOT_COPIED = {
    ".git",
    ".venv",
    ".venv-lowest",
    "var",
    "node_modules",
    "test-artifacts",
    "staticfiles",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".import_linter_cache",
}
RESEARCHER_PAGES = [
    "",
    "live/",
    "crosstab/",
    "privacy/",
    "pilot/",
    "regression/",
    "weights/",
    "export/estimates.csv",
    "export/estimates.json",
    "export/reports.csv",
    "export/reports.json",
    "export/design.json",
]


def fresh_checkout() -> Path:
    """The checkout's files in a new directory every user can read (as root,
    PostgreSQL runs as the postgres user, who must reach ``var/postgres``)."""
    copy = Path(tempfile.mkdtemp(prefix="deniable-serve-"))
    copy.chmod(0o755)
    for entry in ROOT.iterdir():
        if entry.name in NOT_COPIED:
            continue
        target = copy / entry.name
        if entry.is_dir():
            shutil.copytree(entry, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(entry, target)
    (copy / "var").mkdir()
    shutil.copy2(ROOT / "var" / ".gitignore", copy / "var" / ".gitignore")
    (copy / ".venv").symlink_to(ROOT / ".venv")
    return copy


class Session:
    """A browser's cookies against the served site."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(CookieJar())
        )

    def open(self, path: str, data: dict[str, str] | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data else None
        try:
            with self.opener.open(self.base + path, body, timeout=60) as response:
                return response.status, response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")


@dataclass
class Run:
    port: int
    output: str = ""
    statuses: dict[str, int] = field(default_factory=dict)
    exit_code: int | None = None
    cluster_running_after: bool = True


def serve(checkout: Path, log: Path, visit) -> Run:
    """Run scripts/serve in ``checkout``, ``visit`` the site, then Ctrl-C it."""
    port = free_port()
    env = clean_env(PORT=str(port), CACHE_URL="")
    env.pop("HOST", None)  # the default host
    started = Started(["bash", "scripts/serve"], env, log, cwd=checkout)
    run = Run(port)
    try:
        wait_for_http(f"http://127.0.0.1:{port}/", timeout=300)
        run.statuses = visit(f"http://127.0.0.1:{port}", started.output())
    finally:
        os.killpg(started.pid, signal.SIGINT)  # Ctrl-C in its terminal
        try:
            run.exit_code = started.process.wait(timeout=60)
        finally:
            run.output = started.output()
            started.stop()
    run.cluster_running_after = Cluster(checkout / "var" / "postgres").running()
    return run


def visit_demo(base: str, output: str) -> dict[str, int]:
    """The status of every page of the demo survey (signed in for the
    researcher's pages, as the demo user the output names)."""
    survey_path = re.search(r"Answer it at (/s/\S+/)", output).group(1)
    statuses = {}
    respondent = Session(base)
    for page in (survey_path, f"{survey_path}answer/"):
        statuses[page], _ = respondent.open(page)
    researcher = Session(base)
    _, login = researcher.open("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login).group(1)
    user, password = re.search(r"username (\S+), password (\S+) ", output).groups()
    status, landed = researcher.open(
        "/accounts/login/",
        {"username": user, "password": password, "csrfmiddlewaretoken": token},
    )
    statuses["sign in"] = status
    survey_id = re.search(r'href="/surveys/(\d+)/"', landed).group(1)
    for page in RESEARCHER_PAGES:
        path = f"/results/{survey_id}/{page}"
        statuses[path], _ = researcher.open(path)
    return statuses


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> Iterator[tuple[Run, Run]]:
    """Two runs of scripts/serve on one fresh checkout."""
    checkout = fresh_checkout()
    logs = tmp_path_factory.mktemp("serve")
    try:
        first = serve(checkout, logs / "first.log", visit_demo)
        second = serve(checkout, logs / "second.log", lambda base, output: {})
        yield first, second
    finally:
        Cluster(checkout / "var" / "postgres").remove()
        shutil.rmtree(checkout, ignore_errors=True)


def test_serve_on_a_fresh_checkout_answers_every_demo_page_on_the_port_named(two_runs):
    first, _ = two_runs
    assert "Created the cluster: PostgreSQL 16" in first.output
    assert "Demo researcher: username demo" in first.output
    assert f"http://127.0.0.1:{first.port}/" in first.output  # PORT's port
    assert first.statuses, first.output
    assert set(first.statuses.values()) == {200}, first.statuses


def test_serve_stops_its_cluster_when_the_server_is_interrupted(two_runs):
    for run in two_runs:
        assert run.exit_code == 128 + signal.SIGINT, run.output
        assert "Stopped PostgreSQL" in run.output
        assert not run.cluster_running_after


def test_serve_again_reuses_the_cluster_and_the_demo(two_runs):
    first, second = two_runs
    created = re.search(r"“Demo[^”]*”, (\d+) response", first.output).group(1)
    assert "Created the cluster" not in second.output
    assert "Demo survey already present" in second.output
    assert f", {created} response(s)." in second.output
