"""Redis down under load: every submission is stored, tallies catch up.

The test runs a Redis of its own and the compose commands against it and the
test database: ``web`` (gunicorn), a Celery ``worker`` and ``beat`` (with a
short ``TALLY_RECONCILE_SECONDS``).  Respondents load the form and post it
over HTTP from a few threads, as the page's script (or a plain form) does.
Redis is the broker and the shared cache (refresh debouncing, rate limits),
so while it is down no refresh can be enqueued and no limit can be counted:
submissions must still be accepted at once and stored, and once Redis is back
the periodic reconciliation must fold in every report, exactly once.

The worker and beat run under the restart policy docker-compose.yml gives them
(``restart: unless-stopped``), but neither may need it: kombu 5.7's Redis
transport makes a worker that holds an unacknowledged message (a debounced
refresh waiting for its countdown, or a running one) when the connection drops
exit with "Unrecoverable error: AttributeError('NoneType' object has no
attribute 'hostname')"; ``surveys/broker.py`` fixes that, and this test fails
if a worker crashes or restarts.
"""

from __future__ import annotations

import http.client
import io
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db.models import Max
from django.urls import reverse

from benchmarks.harness import percentile
from benchmarks.respondent import Mechanisms
from surveys.analysis.results import selectors
from surveys.authoring.models import Survey
from surveys.collection import demo
from surveys.collection.models import Report, Submission
from tests.conftest import clean_env, free_port, wait_for_http
from tests.own_servers import fetch_form, header, new_answers, post_form
from tests.surveys.analysis.conftest import direct_stats, tally_stats
from tests.surveys.compose import compose, service_command

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 3
WARM_UP_SECONDS = 3
RECONCILE_SECONDS = 2
# The outage lasts until the web processes, the worker and beat have all met
# it and enough respondents answered during it: at least three of beat's
# reconciliation ticks, at most OUTAGE_SECONDS.
SHORTEST_OUTAGE_SECONDS = 3 * RECONCILE_SECONDS
OUTAGE_SECONDS = 20
ANSWERED_DURING_OUTAGE = CLIENTS * 5
CATCH_UP_TIMEOUT = 60
# A submission must not wait for Redis: the cache and the broker fail fast.
SLOW_SUBMISSION_SECONDS = 2.0


@dataclass
class Load:
    """Respondents on ``CLIENTS`` threads; what they sent and what came back."""

    port: int
    path: str
    mechanisms: Mechanisms = field(default_factory=Mechanisms)
    accepted: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def respondent(self, seed: int, *, as_script: bool) -> None:
        """One respondent: the form page, then one POST of fresh answers."""
        try:
            page = fetch_form(self.port, self.path)
            key, body = new_answers(page, self.mechanisms, seed)
            response = post_form(self.port, self.path, page, body, json=as_script)
        except (AssertionError, OSError, http.client.HTTPException) as error:
            with self.lock:
                self.refused.append(f"{type(error).__name__}: {error}")
            return
        location = header(response, "Location") or ""
        ok = (response.status == 201 and b"/s/receipt/" in response.body) or (
            response.status == 303 and location.startswith("/s/receipt/")
        )
        with self.lock:
            self.latencies.append(response.seconds)
            if ok:
                self.accepted.add(key)
            else:
                self.refused.append(f"HTTP {response.status} {response.body[:300]!r}")

    def run(
        self,
        seconds: float,
        *,
        until: Callable[[], bool] | None = None,
        at_least: float = 0.0,
    ) -> list[float]:
        """Respondents on every thread for ``seconds``, or from ``at_least``
        seconds on until ``until()`` holds; this phase's POST times."""
        before = len(self.latencies)
        started = time.monotonic()
        deadline = started + seconds
        enough = threading.Event()

        def loop(index: int) -> None:
            count = 0
            while time.monotonic() < deadline and not enough.is_set():
                seed = uuid.uuid4().int % 2**32
                self.respondent(seed, as_script=(index + count) % 2 == 0)
                count += 1

        threads = [threading.Thread(target=loop, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        while until is not None and time.monotonic() < deadline:
            if time.monotonic() - started >= at_least and until():
                enough.set()
                break
            time.sleep(0.2)
        for thread in threads:
            thread.join()
        with self.lock:
            return self.latencies[before:]


class Supervisor:
    """Compose's ``restart: unless-stopped`` for processes this test started.

    A background thread starts a service again whenever its process exits,
    until ``stop``; ``restarts`` counts how often it had to.
    """

    def __init__(self, start_process, env: dict[str, str]):
        self.start_process = start_process
        self.env = env
        self.services: dict[str, list] = {}  # name -> its processes, oldest first
        self.commands: dict[str, list[str]] = {}
        self.restarts: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self, name: str, command: list[str]) -> None:
        """Start ``command`` as service ``name`` (restarted whenever it exits)."""
        policy = compose()["services"][name.split("-")[0]].get("restart")
        assert policy in {"unless-stopped", "always"}, (name, policy)
        self.commands[name] = command
        self.restarts[name] = 0
        self.services[name] = [self.start_process(command, self.env, name=name)]
        if not self._thread.is_alive():
            self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            for name, processes in self.services.items():
                if processes[-1].process.poll() is not None:
                    self.restarts[name] += 1
                    processes.append(
                        self.start_process(self.commands[name], self.env, name=name)
                    )

    def stop(self) -> None:
        """Stop restarting (the processes themselves stop when the test ends)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def output(self, name: str) -> str:
        """Everything every process of service ``name`` printed, in order."""
        return "\n".join(p.output() for p in self.services[name])

    def running(self, name: str) -> bool:
        return self.services[name][-1].process.poll() is None


@pytest.fixture
def survey(django_user_model) -> Survey:
    """The demo survey (one question of every kind), published and committed."""
    owner = django_user_model.objects.create_user("rosa", password="correct horse 42")
    created, _ = demo.demo_survey(owner=owner)
    return created


def last_report_id(survey: Survey) -> int:
    found = Report.objects.filter(question__survey=survey).aggregate(Max("id"))
    return found["id__max"] or 0


def wait_until_tallied(survey: Survey, timeout: float, logs) -> float:
    """Seconds until the watermark reaches the last stored report."""
    started = time.monotonic()
    target = last_report_id(survey)
    while selectors.survey_watermark(survey_id=survey.pk) < target:
        if time.monotonic() - started > timeout:
            raise AssertionError(
                f"tallies did not catch up in {timeout} s "
                f"(watermark {selectors.survey_watermark(survey_id=survey.pk)}, "
                f"last report {target})\n{logs()}"
            )
        time.sleep(0.1)
    return time.monotonic() - started


def summary(label: str, latencies: list[float]) -> str:
    ms = [seconds * 1000 for seconds in latencies]
    return (
        f"{label}: {len(ms)} POSTs, p50 {percentile(ms, 50):.0f} ms, "
        f"p95 {percentile(ms, 95):.0f} ms, max {max(ms):.0f} ms"
    )


def test_redis_outage_loses_no_submission_and_reconciliation_catches_up(
    own_redis, survey, start_process, test_database_url, tmp_path: Path, request
):
    port = free_port()
    env = clean_env(
        DATABASE_URL=test_database_url,
        CELERY_BROKER_URL=own_redis.url(0),
        CACHE_URL=own_redis.url(1),
        DEBUG="false",
        # All the load comes from 127.0.0.1: limits stay on (and fail open
        # while Redis is down) but high enough for three busy clients.
        RATE_LIMIT_PER_ADDRESS="100000/60",
        RATE_LIMIT_PER_SURVEY="100000/60",
        RATE_LIMIT_PAGES_PER_ADDRESS="100000/60",
        TALLY_RECONCILE_SECONDS=str(RECONCILE_SECONDS),
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="2",
    )
    web = start_process(service_command("web"), env, name="web")
    supervisor = Supervisor(start_process, env)
    request.addfinalizer(supervisor.stop)
    supervisor.start(
        "worker",
        [
            *service_command("worker"),
            "--concurrency",
            "1",
            "--hostname",
            f"outage-{uuid.uuid4().hex[:8]}@%h",
        ],
    )
    beat_command = service_command("beat")
    beat_command[beat_command.index("--schedule") + 1] = str(tmp_path / "schedule")
    supervisor.start("beat", beat_command)

    def logs() -> str:
        outputs = [("web", web.output())] + [
            (name, supervisor.output(name)) for name in ("worker", "beat")
        ]
        return "\n".join(f"--- {name} ---\n{text[-6000:]}" for name, text in outputs)

    wait_for_http(f"http://127.0.0.1:{port}/healthz")
    load = Load(port, reverse("collection:respond", args=[survey.public_token]))

    # Redis up: submissions enqueue refreshes and the worker folds them in.
    warm = load.run(WARM_UP_SECONDS)
    assert load.accepted and not load.refused, load.refused[:5]
    wait_until_tallied(survey, CATCH_UP_TIMEOUT, logs)
    before_outage = len(load.accepted)

    def outage_met() -> bool:
        return (
            len(load.accepted) - before_outage >= ANSWERED_DURING_OUTAGE
            and "could not enqueue a tally refresh" in web.output()
            and "Connection to broker lost" in supervisor.output("worker")
        )

    own_redis.stop()  # SIGTERM by the PID this test started
    outage_started = time.monotonic()
    outage = load.run(
        OUTAGE_SECONDS, until=outage_met, at_least=SHORTEST_OUTAGE_SECONDS
    )
    outage_seconds = time.monotonic() - outage_started
    during_outage = len(load.accepted) - before_outage
    assert not load.refused, load.refused[:5]
    assert during_outage >= ANSWERED_DURING_OUTAGE, "the outage saw too little load"
    assert "could not enqueue a tally refresh" in web.output()
    assert "Connection to broker lost" in supervisor.output("worker"), logs()

    own_redis.start()  # the same port, empty: every queued refresh is gone
    catch_up = wait_until_tallied(survey, CATCH_UP_TIMEOUT, logs)

    supervisor.stop()
    crashes = [
        line
        for line in supervisor.output("worker").splitlines()
        if "Unrecoverable error" in line
    ]
    print(
        f"\n{summary('Redis up', warm)}\n{summary('Redis down', outage)}\n"
        f"accepted {len(load.accepted)} ({during_outage} during the "
        f"{outage_seconds:.1f} s outage); tallies caught up {catch_up:.1f} s after "
        f"Redis returned (reconciliation every {RECONCILE_SECONDS} s)\n"
        f"restarts under compose's policy: {supervisor.restarts}; "
        f"worker crashes: {crashes[:1] or 'none'}"
    )
    slow = [seconds for seconds in outage if seconds > SLOW_SUBMISSION_SECONDS]
    assert percentile(outage, 95) < SLOW_SUBMISSION_SECONDS, summary("down", outage)
    assert len(slow) <= len(outage) // 100, summary("down", outage)

    stored_keys = {
        str(key)
        for key in Submission.objects.filter(survey=survey).values_list(
            "idempotency_key", flat=True
        )
    }
    assert stored_keys == load.accepted  # 0 lost, nothing extra
    private = survey.questions.filter(is_private=True)
    tallies = tally_stats(survey)
    assert {key[0] for key in tallies} == set(private.values_list("pk", flat=True))
    assert all(stat["n"] == len(load.accepted) for stat in tallies.values())
    assert tallies == direct_stats(survey)  # counted once, no more
    call_command("recount_tallies", "--survey", str(survey.pk), stdout=io.StringIO())
    assert tally_stats(survey) == tallies
    assert supervisor.running("worker") and supervisor.running("beat"), logs()
    assert supervisor.restarts["beat"] == 0, logs()  # beat rides out the outage
    assert not crashes, crashes  # surveys/broker.py keeps the worker alive
    assert supervisor.restarts["worker"] == 0, logs()
    assert "reconcile_tallies" in supervisor.output("worker")


def test_a_paused_broker_delays_a_submission_by_about_a_second_at_most(
    own_redis, survey, start_process, test_database_url, django_user_model
):
    # A Redis that accepts connections but never answers (here: stopped with
    # SIGSTOP) must not hold the request that enqueues the refresh.
    port = free_port()
    env = clean_env(
        DATABASE_URL=test_database_url,
        CELERY_BROKER_URL=own_redis.url(0),
        CACHE_URL="",
        DEBUG="false",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
    )
    web = start_process(service_command("web"), env, name="web")
    # The warm-up answers another survey: its refresh's debounce marker does
    # not hold back the refreshes of the survey under test.
    other, _ = demo.demo_survey(
        owner=django_user_model.objects.create_user("sam", password="x" * 20)
    )
    wait_for_http(f"http://127.0.0.1:{port}/healthz")
    warm = Load(port, reverse("collection:respond", args=[other.public_token]))
    warm.respondent(1, as_script=True)  # the broker answers
    assert len(warm.accepted) == 1, warm.refused
    load = Load(port, reverse("collection:respond", args=[survey.public_token]))

    os.kill(own_redis.process.pid, signal.SIGSTOP)
    try:
        for seed in (2, 3, 4):
            load.respondent(seed, as_script=True)
        # Each refresh is published after its response was sent, so the last
        # one is still trying when the respondent has their receipt: keep the
        # broker paused until it has given up.
        failed = wait_for_count(web, "could not enqueue a tally refresh", 3)
    finally:
        os.kill(own_redis.process.pid, signal.SIGCONT)

    print(f"\n{summary('broker paused', load.latencies)}")
    assert not load.refused, load.refused
    assert len(load.accepted) == Submission.objects.filter(survey=survey).count() == 3
    assert max(load.latencies) < SLOW_SUBMISSION_SECONDS, load.latencies
    # One web process publishes one refresh at a time, after each response:
    # every submission's publish was tried, failed within its timeout and
    # was logged (beat's reconciliation catches up, see
    # test_redis_outage_loses_no_submission_and_reconciliation_catches_up).
    assert failed == 3, web.output()


def wait_for_count(process, line: str, count: int, timeout: float = 10.0) -> int:
    """How often ``line`` is in ``process``'s output once it reaches ``count``
    (or ``timeout`` seconds have passed)."""
    deadline = time.monotonic() + timeout
    while (found := process.output().count(line)) < count:
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return found
