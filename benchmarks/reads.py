"""Read latency of the researcher's pages against stored reports, as ratios.

Usage::

    python benchmarks/reads.py [--sizes 10000,1000000] [--repeat 7] [--runs 3]

Starts a throwaway PostgreSQL cluster of its own (removed at the end) unless
``DATABASE_URL`` names a scratch database.  For each size it bulk-loads that
many stored reports (COPY, randomized by the Python reference) to a survey
with one 8-option question (generalized randomized response, ε = 1), and once
10^4 reports to a survey with the heaviest number question the builder
accepts (201 levels at ε = 0.0201; 1,001 levels are refused);
the tallies are brought up to date (not timed).  Then, through Django's test
client in this process (tasks in-process, as with no broker), it times the
median of ``--repeat`` requests after one warm-up request each of:

* the trivial views, the baselines: ``/ping`` (the same middleware, no work of
  its own) signed in, which includes loading the session and the user, the
  floor of every signed-in researcher's read, and the baseline of the pages
  and exports; ``/bench/api-ping`` (``benchmarks/baseline_site.py``: the API's
  bearer-token check, which reads the token and its user, and ``{}``), the
  baseline of the API's read; and ``/ping`` anonymous, printed for reference
  (a second table gives every read as a multiple of it);
* the dashboard, the live endpoint, the estimate exports (CSV, JSON), the API's
  survey resource, and the start of a raw-report export (the time to its first
  streamed chunk; the whole export grows with n by nature).

With ``--shared-cache`` the in-process reads use a Redis server of the
script's own as the shared cache (``CACHE_URL``), as deployed: sessions and
rendered results fragments are then read from it.

With ``--http`` the same reads are then made over HTTP (``reads_http``)
against the compose ``web`` command (gunicorn, ``gunicorn.conf.py``,
``--web-workers`` workers) on 127.0.0.1, with a Redis of its own as broker and
shared cache (as deployed), one request per new connection,
``--http-requests`` times each, signed in with a session cookie: it prints p50
and p99 latency as ratios to ``/ping`` served by the same gunicorn. The
snapshots are computed before it starts. Over HTTP it also times the start of
a raw-report export job: the POST that records the job and queues it for a
worker (no worker runs, so each request measures only the queuing; the job is
removed between requests, untimed, so that none is answered by reusing an
earlier one).

``--queries`` prints how many database queries each read makes, per size: the
reads are constant in n when these do not grow.  ``--clock cpu`` times the
in-process reads by this process's CPU time instead of the wall clock: steady
on a busy machine, but without the time PostgreSQL and Redis spend (the HTTP
run's CPU table counts theirs).

Run it on two checkouts to compare code before and after a change: the script
uses only URLs and the authoring and collection services.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The site plus the benchmarks' trivial views (``/bench/api-ping``).
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.baseline_settings")
for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
    os.environ.pop(name, None)  # in-process tasks, a per-process cache
os.environ["RATE_LIMITS_ENABLED"] = "false"

from benchmarks.bulk import store_reports  # noqa: E402 (after the path is set)
from benchmarks.harness import one_question_survey  # noqa: E402
from benchmarks.reads_http import over_http, own_shared_cache  # noqa: E402

# The in-process clock: wall time (the default) or, with ``--clock cpu``, this
# process's CPU time, which other work on a busy machine does not inflate (it
# leaves out the time PostgreSQL and Redis spend, counted over HTTP instead).
CLOCK = time.perf_counter


def median_seconds(get, repeat: int) -> float:
    get()  # warm-up (the first reader may compute what later ones read)
    times = []
    for _ in range(repeat):
        started = CLOCK()
        get()
        times.append(CLOCK() - started)
    return statistics.median(times)


def endpoints(client, survey, api_secret: str) -> dict:
    from django.urls import reverse

    def page(name: str):
        url = reverse(name, args=[survey.pk])
        return lambda: _ok(client.get(url))

    def first_chunk():
        response = client.get(reverse("analysis:export_reports_csv", args=[survey.pk]))
        next(iter(response.streaming_content))
        response.close()

    api_url = reverse("analysis:api_survey", kwargs={"pk": survey.pk})
    return {
        "dashboard": page("analysis:dashboard"),
        "live": page("analysis:dashboard_live"),
        "estimates.csv": page("analysis:export_estimates_csv"),
        "estimates.json": page("analysis:export_estimates_json"),
        "API survey": lambda: _ok(
            client.get(api_url, HTTP_AUTHORIZATION=f"Bearer {api_secret}")
        ),
        "reports.csv start": first_chunk,
    }


def _ok(response) -> None:
    if response.status_code != 200:
        raise SystemExit(f"{response.status_code} from {response.request['PATH_INFO']}")


def _cases(owner, sizes: list[int]) -> list[tuple[str, object, int]]:
    """(label, survey, reports) of every case, its reports stored and its
    tallies brought up to date (not timed): one 8-option GRR question per
    size, then the heaviest number question at 10^4."""
    from django.db import connection

    from surveys.analysis.tallies import services
    from surveys.authoring.mechanisms import PrivacyConfig

    rng = np.random.default_rng(20261123)
    cases = []
    grr = PrivacyConfig(
        kind="single_choice",
        options=tuple("ABCDEFGH"),
        epsilon=1.0,
        mechanism="grr",
    )
    for size in sizes:
        survey = one_question_survey(owner, f"8 options, {size:,} reports", grr)
        cases.append((f"8 options, n = {size:,}", survey, size))
    numeric = PrivacyConfig(
        kind="numeric",
        low=Decimal(0),
        high=Decimal(200),
        step=Decimal(1),
        epsilon=0.0201,
        mechanism="geometric",
    )
    survey = one_question_survey(owner, "201 levels at ε = 0.0201", numeric)
    cases.append(("201 levels, ε = 0.0201, n = 10,000", survey, 10_000))
    for _, survey, size in cases:
        store_reports(survey, size, rng)
        services.tallies_refresh(survey_id=survey.pk)  # up to date, not timed
    with connection.cursor() as cursor:
        # Planner statistics for the rows just copied in, as autovacuum would
        # gather them on a server (without them the first snapshot of 10^6
        # reports took minutes on a busy machine).
        cursor.execute("ANALYZE")
    return cases


def _print_run(number: int, runs: int, cases, client, secret: str, repeat: int) -> None:
    """One run's tables: every read's median against the fair trivial view,
    then as multiples of the anonymous ``/ping``."""
    from django.test import Client

    ping = lambda: _ok(client.get("/ping"))  # noqa: E731
    anonymous = Client(SERVER_NAME="localhost")
    anonymous_ping = lambda: _ok(anonymous.get("/ping"))  # noqa: E731
    api_ping = lambda: _ok(  # noqa: E731
        client.get("/bench/api-ping", HTTP_AUTHORIZATION=f"Bearer {secret}")
    )
    names = list(endpoints(client, cases[0][1], secret))
    print(f"\nrun {number} of {runs}")
    print(
        f"{'case':>36} | {'ping ms':>8} | {'API ping ms':>11} | {'anon. ms':>8} | "
        + " | ".join(f"{n:>17}" for n in names)
    )
    print("-" * (76 + 20 * len(names)))
    against_anonymous = []
    for label, survey, _ in cases:
        base = median_seconds(ping, repeat)
        api_base = median_seconds(api_ping, repeat)
        anonymous_base = median_seconds(anonymous_ping, repeat)
        cells, plain = [], []
        for name, get in endpoints(client, survey, secret).items():
            seconds = median_seconds(get, repeat)
            fair = api_base if name == "API survey" else base
            cells.append(f"{seconds * 1000:8.1f} ms {seconds / fair:5.1f}×")
            plain.append(f"{seconds / anonymous_base:16.1f}×")
        print(
            f"{label:>36} | {base * 1000:8.2f} | {api_base * 1000:11.2f} | "
            f"{anonymous_base * 1000:8.2f} | " + " | ".join(cells)
        )
        against_anonymous.append((label, plain))
    print(f"\nthe same reads as multiples of the anonymous /ping (run {number})")
    for label, plain in against_anonymous:
        print(f"{label:>36} | " + " | ".join(plain))


def run(
    sizes: list[int],
    repeat: int,
    runs: int = 1,
    http_requests: int = 0,
    web_workers: int = 2,
    queries: bool = False,
) -> None:
    """Store the cases, then time every read in process (and over HTTP)."""
    import django
    from django.core.management import call_command

    django.setup()
    from django.conf import settings

    call_command("migrate", verbosity=0)
    from django.test import Client

    from surveys.accounts.models import User
    from surveys.analysis.tallies import snapshots
    from surveys.api_tokens.services import api_token_create

    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}")
    secret = api_token_create(user=owner, name="bench").secret
    client = Client(SERVER_NAME="localhost")  # a host the site allows
    cases = _cases(owner, sizes)
    # Signed in only now: loading 10^7 reports takes longer than a
    # researcher's idle timeout (SESSION_IDLE_MINUTES), after which every
    # read would answer a redirect to the sign-in page.
    client.force_login(owner)
    for number in range(1, runs + 1):
        _print_run(number, runs, cases, client, secret, repeat)
    print(
        "\nEach cell: median latency, and its ratio to the signed-in /ping (the API"
        " survey: to the token-checked /bench/api-ping) measured in the same run."
    )
    if queries:
        print_query_counts(cases, client, secret)
    if http_requests:
        for _, survey, _ in cases:
            snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        over_http(cases, client, secret, session, http_requests, web_workers)


def print_query_counts(cases, client, secret: str) -> None:
    """Database queries of each read (after a warm-up), per case."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    names = list(endpoints(client, cases[0][1], secret))
    print("\ndatabase queries per read (signed in, after one warm-up read)")
    print(f"{'case':>36} | " + " | ".join(f"{n:>17}" for n in names))
    for label, survey, _ in cases:
        cells = []
        for get in endpoints(client, survey, secret).values():
            get()
            with CaptureQueriesContext(connection) as captured:
                get()
            cells.append(f"{len(captured.captured_queries):>17}")
        print(f"{label:>36} | " + " | ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--runs", type=int, default=1, help="measure this many times on the same data"
    )
    parser.add_argument(
        "--http",
        type=int,
        default=0,
        metavar="N",
        help="then N requests of each read over HTTP to gunicorn (0: none)",
    )
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument(
        "--queries", action="store_true", help="print database queries per read"
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="in process, time wall clock or this process's CPU time (steady on"
        " a busy machine; leaves out the database's and Redis's own time)",
    )
    parser.add_argument(
        "--shared-cache",
        action="store_true",
        help="in process too, use a Redis of its own as the shared cache (as"
        " deployed: sessions and results fragments read from it)",
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        if args.shared_cache:
            stack.enter_context(own_shared_cache())
        _measure(args)


def _measure(args: argparse.Namespace) -> None:
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"in-process clock: {args.clock}")
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        run(sizes, args.repeat, args.runs, args.http, args.web_workers, args.queries)
        return
    from tests.own_servers import OwnPostgres

    cluster = OwnPostgres.on_a_free_port()
    try:
        os.environ["DATABASE_URL"] = cluster.create_database("deniable_reads")
        run(sizes, args.repeat, args.runs, args.http, args.web_workers, args.queries)
    finally:
        cluster.destroy()


if __name__ == "__main__":
    main()
