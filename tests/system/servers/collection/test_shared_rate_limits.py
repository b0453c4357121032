"""Rate limits hold across web processes: gunicorn with several workers counts
each limit once, in the shared cache (Redis through ``CACHE_URL``), and refuses
to start over a per-process cache (surveys/operations/checks.py)."""

from __future__ import annotations

import re
import subprocess
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.urls import reverse

from benchmarks.http_client import request
from surveys.collection import demo
from surveys.operations.checks import CHECK_ID
from tests.conftest import ROOT, clean_env, free_port, wait_for_http
from tests.surveys.compose import service_command

pytestmark = pytest.mark.django_db(transaction=True)

WEB_PROCESSES = 3
LIMIT = 6
REQUESTS = 30
# The access log line of each request: the serving process's PID, the status
# and the path.
PID_AND_STATUS = ["--access-logformat", "served-by %(p)s status %(s)s path %(U)s"]
SERVED = re.compile(r"served-by <(\d+)> status (\d{3}) path (\S+)")


@pytest.fixture
def public_consent_path(django_user_model) -> str:
    """The consent page of a published public survey (committed for gunicorn)."""
    owner = django_user_model.objects.create_user("lin", password="correct horse 42")
    survey, _ = demo.demo_survey(owner=owner)
    return reverse("collection:consent", args=[survey.public_token])


def test_over_limit_page_loads_are_refused_across_web_processes(
    start_process, own_redis, test_database_url, public_consent_path
):
    port = free_port()
    env = clean_env(
        DATABASE_URL=test_database_url,
        CACHE_URL=own_redis.url(2),
        DEBUG="false",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY=str(WEB_PROCESSES),
        RATE_LIMITS_ENABLED="true",
        RATE_LIMIT_PAGES_PER_ADDRESS=f"{LIMIT}/600",
    )
    web = start_process([*service_command("web"), *PID_AND_STATUS], env, name="web")
    wait_for_http(f"http://127.0.0.1:{port}/healthz")

    def load(_: int) -> int:
        return request(port, "GET", public_consent_path, timeout=30).status

    with ThreadPoolExecutor(max_workers=WEB_PROCESSES * 2) as pool:
        statuses = Counter(pool.map(load, range(REQUESTS)))

    assert statuses == {200: LIMIT, 429: REQUESTS - LIMIT}, statuses
    served = logged_requests(web)
    assert len(served) == REQUESTS, web.output()[-3000:]
    # Several processes answered, and together they let the limit through once.
    assert len({pid for pid, _ in served}) >= 2, served


def logged_requests(web, timeout: float = 10) -> list[tuple[str, str]]:
    """(PID, status) of every logged request but the health checks, once all
    ``REQUESTS`` are logged (a line is written just after its answer)."""
    deadline = time.monotonic() + timeout
    while True:
        served = [
            (pid, status)
            for pid, status, path in SERVED.findall(web.output())
            if path != "/healthz"
        ]
        if len(served) >= REQUESTS or time.monotonic() > deadline:
            return served
        time.sleep(0.2)


def test_several_web_processes_refuse_to_start_over_a_per_process_cache(
    test_database_url,
):
    env = clean_env(
        DATABASE_URL=test_database_url,
        CACHE_URL="",
        GUNICORN_BIND=f"127.0.0.1:{free_port()}",
        WEB_CONCURRENCY=str(WEB_PROCESSES),
    )
    run = subprocess.run(
        service_command("web"),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode != 0
    assert CHECK_ID in run.stderr
    assert f"{WEB_PROCESSES} web processes" in run.stderr
    assert "CACHE_URL=redis://" in run.stderr
