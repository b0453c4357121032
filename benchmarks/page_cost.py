"""Server time of the builder, respondent and dashboard pages near the size limits.

Usage::

    .venv/bin/python benchmarks/page_cost.py [--repeat 3] [--sweep]

Runs Django in this process against a scratch PostgreSQL cluster of its own
(``tests/own_servers.py``; nothing else is touched; rate limits are off, the
cache is a local memory one) and times each page through Django's test
client, so the figures are server time: URL routing, middleware, the view,
templates and the database, without a network.  The baseline is the trivial
view ``GET /ping`` (a two-byte answer through the same middleware), timed in
the same run as the median of many requests; every page is printed in
milliseconds and as a ratio to it.

For each case (a question of one kind at or near its limit) it times, each the
best of ``--repeat`` runs:

* ``preview``: the builder's live preview (``GET …/preview/``) with the
  process-wide compiled-mechanism cache and Django's cache emptied first
  (*cold*: a researcher trying a new setting), then again (*warm*);
* ``add``: saving the question (``POST …/questions/new/``), cold;
* ``consent`` and ``respond``: the public consent and answer pages of the
  published survey, cold (first request after a restart) and warm;
* ``dashboard``: the results page, cold and warm.

The budget (README, "Limits") is checked per row: preview and add, cold, within
``BUILDER_BUDGET`` times the trivial view; respondent pages within
``RESPONDENT_BUDGET`` times warm and ``RESPONDENT_COLD_BUDGET`` times cold; the
dashboard within ``DASHBOARD_BUDGET`` times, cold.  ``--sweep`` adds the cost of
compiling and planning numeric grids beyond the limit (calling ldp directly,
as the builder did before the limit), the measurement the limit was chosen
from.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BUILDER_BUDGET = 150
RESPONDENT_BUDGET = 20
RESPONDENT_COLD_BUDGET = 60
DASHBOARD_BUDGET = 150


@contextlib.contextmanager
def scratch_database() -> Iterator[str]:
    """The URL of a database on a throwaway cluster, removed afterwards."""
    from tests.own_servers import OwnPostgres

    cluster = OwnPostgres.on_a_free_port()
    try:
        yield cluster.create_database("deniable_page_cost")
    finally:
        cluster.destroy()


def setup(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    for name in ("CACHE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        os.environ.pop(name, None)
    os.environ["RATE_LIMITS_ENABLED"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    import logging

    import django
    from django.core.management import call_command

    django.setup()
    logging.disable(logging.WARNING)
    call_command("migrate", verbosity=0)
    from django.conf import settings
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.ALLOWED_HOSTS = ["*"]


def cold() -> None:
    """Empty every cache a compile, a plan or a page could be served from: the
    process-wide compiled mechanisms, Django's cache and
    ldp's remembered numeric calibrations (as after a restart, or for a
    setting never tried)."""
    from django.core.cache import cache

    from ldp.mechanisms.numeric import calibration
    from surveys.authoring.compiled import cache_clear

    cache_clear()
    cache.clear()
    calibration._CACHE.clear()


def timed(call: Callable[[], object], expect: int) -> float:
    start = time.perf_counter()
    response = call()
    elapsed = time.perf_counter() - start
    status = getattr(response, "status_code", None)
    if status != expect:
        raise SystemExit(f"unexpected HTTP {status} (wanted {expect})")
    return elapsed


def best(call: Callable[[], object], expect: int, repeat: int, before=None) -> float:
    times = []
    for _ in range(repeat):
        if before:
            before()
        times.append(timed(call, expect))
    return min(times)


def options(count: int) -> str:
    return "\n".join(f"Option {i + 1}" for i in range(count))


def numeric(levels: int, epsilon: str, mechanism: str = "") -> dict:
    return {
        "kind": "numeric",
        "numeric_low": "0",
        "numeric_high": str(levels - 1),
        "numeric_step": "1",
        "requested_epsilon": epsilon,
        "mechanism": mechanism,
    }


def cases() -> list[tuple[str, dict]]:
    from ldp.mechanisms import registry
    from ldp.mechanisms.ordinal import ORDINAL_K_MAX
    from surveys.authoring.mechanisms import NUMERIC_LEVELS_MAX, numeric_epsilon_min
    from surveys.authoring.validation import OPTIONS_MAX

    m = NUMERIC_LEVELS_MAX
    rows = [("yes/no (small)", {"kind": "yes_no", "requested_epsilon": "1"})]
    for levels in (m, 20, 2):  # the smallest ε allowed for each size
        epsilon = f"{numeric_epsilon_min(levels):g}"
        rows.append(
            (f"numeric m={levels} ε={epsilon} recommended", numeric(levels, epsilon))
        )
    smallest = f"{numeric_epsilon_min(m):g}"
    rows.append((f"numeric m={m} ε=1 recommended", numeric(m, "1")))
    for name in (family.name for family in registry.for_kind("numeric")):
        rows.append((f"numeric m={m} ε={smallest} {name}", numeric(m, smallest, name)))
    rows += [
        (
            f"ordinal k={ORDINAL_K_MAX} ε=0.01",
            {
                "kind": "ordinal",
                "options": options(ORDINAL_K_MAX),
                "requested_epsilon": "0.01",
            },
        ),
        (
            f"single choice k={OPTIONS_MAX} ε=0.01",
            {
                "kind": "single_choice",
                "options": options(OPTIONS_MAX),
                "requested_epsilon": "0.01",
            },
        ),
        (
            f"single choice k={OPTIONS_MAX} ε=1 sue",
            {
                "kind": "single_choice",
                "options": options(OPTIONS_MAX),
                "requested_epsilon": "1",
                "mechanism": "sue",
            },
        ),
        (
            "multi-select k=64 ε=0.01 multi_rr",
            {
                "kind": "multi_select",
                "options": options(64),
                "requested_epsilon": "0.01",
                "mechanism": "multi_rr",
            },
        ),
        (
            f"multi-select k={OPTIONS_MAX} ε=0.01",
            {
                "kind": "multi_select",
                "options": options(OPTIONS_MAX),
                "requested_epsilon": "0.01",
            },
        ),
    ]
    return rows


def measure(
    client, respondent, owner, label: str, fields: dict, repeat: int
) -> dict[str, float]:
    from django.urls import reverse

    from surveys.authoring import services

    survey = services.survey_create(owner=owner, title=label, epsilon_budget=10)
    data = {"text": label, "protection": "protected", "mechanism": "", **fields}
    preview_url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    add_url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    row = {
        "preview cold": best(lambda: client.get(preview_url, data), 200, repeat, cold),
        "preview warm": best(lambda: client.get(preview_url, data), 200, repeat),
    }

    def add():
        survey.questions.all().delete()
        cold()

    row["add cold"] = best(lambda: client.post(add_url, data), 302, repeat, add)
    survey = services.survey_publish(survey=survey, user=owner)
    consent = reverse("collection:consent", args=[survey.public_token])
    respond = reverse("collection:respond", args=[survey.public_token])
    dashboard = reverse("analysis:dashboard", kwargs={"pk": survey.pk})
    for name, url, reader in (
        ("consent", consent, respondent),
        ("respond", respond, respondent),
        ("dashboard", dashboard, client),
    ):
        row[f"{name} cold"] = best(lambda u=url, r=reader: r.get(u), 200, repeat, cold)
        row[f"{name} warm"] = best(lambda u=url, r=reader: r.get(u), 200, repeat)
    return row


def largest_survey(client, respondent, owner, repeat: int) -> dict[str, float]:
    """A survey at its size limits: 100 protected questions, 512 options in all."""
    from django.urls import reverse

    from surveys.authoring import services
    from surveys.authoring.mechanisms import PrivacyConfig

    questions = services.SURVEY_QUESTIONS_MAX
    choices = 4
    per_choice = (services.SURVEY_OPTIONS_MAX - 2 * (questions - choices)) // choices
    survey = services.survey_create(owner=owner, title="largest", epsilon_budget=10)
    for number in range(questions - choices):
        services.question_create(
            survey=survey,
            text=f"Yes or no {number}?",
            privacy=PrivacyConfig("yes_no", epsilon=0.05),
        )
    options = tuple(f"Option {i}" for i in range(per_choice))
    for number in range(choices):
        services.question_create(
            survey=survey,
            text=f"Which one {number}?",
            privacy=PrivacyConfig("single_choice", options=options, epsilon=0.05),
        )
    survey = services.survey_publish(survey=survey, user=owner)
    row = {"preview cold": math.nan, "preview warm": math.nan, "add cold": math.nan}
    pages = {
        "consent": (
            reverse("collection:consent", args=[survey.public_token]),
            respondent,
        ),
        "respond": (
            reverse("collection:respond", args=[survey.public_token]),
            respondent,
        ),
        "dashboard": (reverse("analysis:dashboard", kwargs={"pk": survey.pk}), client),
    }
    for name, (url, reader) in pages.items():
        row[f"{name} cold"] = best(lambda u=url, r=reader: r.get(u), 200, repeat, cold)
        row[f"{name} warm"] = best(lambda u=url, r=reader: r.get(u), 200, repeat)
    return row


def refused(client, owner) -> float:
    """A question at ldp's own limit (1,001 levels, ε = 0.01): its cost."""
    from django.urls import reverse

    from surveys.authoring import services

    survey = services.survey_create(owner=owner, title="refused")
    data = {"text": "q", "protection": "protected", **numeric(1001, "0.01")}
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    cold()
    start = time.perf_counter()
    body = client.get(url, data).json()
    elapsed = time.perf_counter() - start
    if body["ok"]:
        raise SystemExit("the 1,001-level grid was not refused")
    return elapsed


def sweep(levels: list[int], baseline: float) -> None:
    """Compile and plan numeric grids directly in ldp (bypassing the limit)."""
    import ldp

    print(
        "\ncompile + plan in ldp, cold, beyond the limit (what the builder did "
        "per request before it):"
    )
    print(f"{'levels':>7} {'ε':>5} {'mechanism':<12} {'ms':>9} {'× trivial':>10}")
    for m in levels:
        grid = {"low": "0", "high": str(m - 1), "step": "1"}
        for epsilon in (0.01, 1.0):
            cold()
            start = time.perf_counter()
            chosen = ldp.recommend_numeric(epsilon=epsilon, **grid)
            ldp.build(chosen.spec).worst_case_variance()
            elapsed = time.perf_counter() - start
            print(
                f"{m:>7} {epsilon:>5} {'recommended':<12} {elapsed * 1000:>9.1f} "
                f"{elapsed / baseline:>10.0f}",
                flush=True,
            )
            for name in ("gaussian", "piecewise"):
                cold()
                start = time.perf_counter()
                ldp.build(
                    {"mechanism": name, "epsilon": epsilon, **grid}
                ).worst_case_variance()
                elapsed = time.perf_counter() - start
                print(
                    f"{m:>7} {epsilon:>5} {name:<12} {elapsed * 1000:>9.1f} "
                    f"{elapsed / baseline:>10.0f}",
                    flush=True,
                )


# (column, budget, whose trivial view it is divided by): the respondent's
# pages as respondents load them (anonymous), against the anonymous /ping.
COLUMNS = [
    ("preview cold", BUILDER_BUDGET, "researcher"),
    ("preview warm", None, "researcher"),
    ("add cold", BUILDER_BUDGET, "researcher"),
    ("consent cold", RESPONDENT_COLD_BUDGET, "respondent"),
    ("consent warm", RESPONDENT_BUDGET, "respondent"),
    ("respond cold", RESPONDENT_COLD_BUDGET, "respondent"),
    ("respond warm", RESPONDENT_BUDGET, "respondent"),
    ("dashboard cold", DASHBOARD_BUDGET, "researcher"),
    ("dashboard warm", None, "researcher"),
]


def trivial_baselines(client, respondent, pings: int) -> dict[str, float]:
    """Median seconds of ``/ping`` signed in ("researcher") and signed out
    ("respondent"), after a warm-up of imports, templates and the connection."""
    for _ in range(20):
        client.get("/ping")
        respondent.get("/ping")
    return {
        who: statistics.median(
            timed(lambda r=reader: r.get("/ping"), 200) for _ in range(pings)
        )
        for who, reader in (("researcher", client), ("respondent", respondent))
    }


def print_row(label: str, row: dict[str, float], baselines: dict[str, float]) -> int:
    """Print one case's ratios to its trivial view and its milliseconds; the
    number of its cells over budget."""
    cells = []
    over = 0
    for name, budget, who in COLUMNS:
        ratio = row[name] / baselines[who]
        if math.isnan(ratio):
            cells.append(f"{'-':>14} ")
            continue
        flag = "*" if budget is not None and ratio > budget else " "
        over += flag == "*"
        cells.append(f"{ratio:>14.0f}{flag}")
    print(f"{label:<40}" + "".join(cells), flush=True)
    print(
        f"{'  (ms)':<40}"
        + "".join(
            f"{'-':>14} " if math.isnan(row[name]) else f"{row[name] * 1000:>14.1f} "
            for name, _, _ in COLUMNS
        ),
        flush=True,
    )
    return over


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--pings", type=int, default=200, help="trivial requests")
    parser.add_argument("--sweep", action="store_true", help="grids beyond the limit")
    parser.add_argument("--only", default="", help="cases whose name contains this")
    args = parser.parse_args()
    with scratch_database() as database_url:
        setup(database_url)
        from django.test import Client

        from surveys.accounts.models import User

        owner = User.objects.create_user("bench")
        client = Client(SERVER_NAME="localhost")  # a host the site allows
        client.force_login(owner)
        respondent = Client(SERVER_NAME="localhost")  # signed out, as respondents are
        baselines = trivial_baselines(client, respondent, args.pings)
        baseline = baselines["researcher"]
        print(
            f"baseline: GET /ping (trivial), median of {args.pings}: "
            f"{baseline * 1000:.2f} ms signed in (the researcher's pages), "
            f"{baselines['respondent'] * 1000:.2f} ms signed out (the "
            "respondent's consent and answer pages, loaded signed out)"
        )
        print(
            f"budget (× trivial): preview and add cold ≤ {BUILDER_BUDGET}; consent "
            f"and respond ≤ {RESPONDENT_BUDGET} warm, ≤ {RESPONDENT_COLD_BUDGET} "
            f"cold; dashboard cold ≤ {DASHBOARD_BUDGET}"
        )
        print(f"figures: × trivial, best of {args.repeat}; * = over budget\n")
        header = f"{'case':<40}" + "".join(f"{name:>15}" for name, _, _ in COLUMNS)
        print(header)
        over = 0
        rows = [
            (
                label,
                lambda f=fields, lab=label: measure(
                    client, respondent, owner, lab, f, args.repeat
                ),
            )
            for label, fields in cases()
        ]
        from surveys.authoring import services

        largest = (
            f"survey: {services.SURVEY_QUESTIONS_MAX} questions, "
            f"{services.SURVEY_OPTIONS_MAX} options"
        )
        rows.append(
            (largest, lambda: largest_survey(client, respondent, owner, args.repeat))
        )
        for label, run in rows:
            if args.only not in label:
                continue
            over += print_row(label, run(), baselines)
        elapsed = refused(client, owner)
        print(
            f"\na question at ldp's own limit (1,001 levels, ε = 0.01), refused by the "
            f"preview: {elapsed * 1000:.1f} ms = {elapsed / baseline:.0f}× trivial"
        )
        if args.sweep:
            sweep([101, 201, 301, 501, 1001], baseline)
        print(f"\nrows over budget: {over}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
