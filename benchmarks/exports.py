"""Time to write the per-respondent exports, as ratios to the raw-report CSV.

Usage::

    python benchmarks/exports.py [--sizes 10000,100000] [--repeat 3]

Starts a throwaway PostgreSQL cluster of its own (removed at the end) unless
``DATABASE_URL`` names a scratch database.  For each size it bulk-loads that
many one-report submissions (COPY, randomized by the Python reference) to a
survey with one 8-option question under generalized randomized response (the
bulk loader writes one-number reports).  Then
it times the median of ``--repeat`` whole writes, after one warm-up each, of:

* ``reports.csv`` (the long raw-report export, streamed), the baseline every
  other figure is divided by;
* the wide CSV (streamed), SPSS ``.sav`` and Stata ``.dta`` (pyreadstat, the
  table held in memory) and the codebook CSV.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
    os.environ.pop(name, None)  # in-process tasks, a per-process cache

from benchmarks.bulk import store_reports  # noqa: E402 (after the path is set)


def median_seconds(write, repeat: int) -> float:
    write()  # warm-up
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        write()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def writers(survey) -> dict:
    from surveys.analysis.exports import datasets, raw_reports

    def reports_csv() -> None:
        for _ in raw_reports.reports_csv(survey):
            pass

    def file(writer):
        return lambda: writer(survey, io.BytesIO())

    return {
        "reports.csv": reports_csv,
        "wide.csv": file(datasets.write_wide_csv),
        "wide.sav": file(datasets.write_sav),
        "wide.dta": file(datasets.write_dta),
        "codebook.csv": file(datasets.write_codebook_csv),
    }


def run(sizes: list[int], repeat: int) -> None:
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from surveys.accounts.models import User
    from surveys.authoring import services as authoring
    from surveys.authoring.mechanisms import PrivacyConfig

    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}")
    rng = np.random.default_rng(20261123)
    cases = []
    for mechanism in ("grr",):
        privacy = PrivacyConfig(
            kind="single_choice",
            options=tuple("ABCDEFGH"),
            epsilon=1.0,
            mechanism=mechanism,
        )
        for size in sizes:
            title = f"{mechanism}, 8 options, n = {size:,}"
            survey = authoring.survey_create(owner=owner, title=title)
            authoring.question_create(survey=survey, text=title, privacy=privacy)
            survey = authoring.survey_publish(survey=survey, user=owner)
            store_reports(survey, size, rng)
            cases.append((title, survey))

    names = list(writers(cases[0][1]))
    print(f"{'case':>28} | " + " | ".join(f"{n:>19}" for n in names))
    print("-" * (31 + 22 * len(names)))
    for label, survey in cases:
        times = {n: median_seconds(w, repeat) for n, w in writers(survey).items()}
        base = times["reports.csv"]
        cells = [f"{t * 1000:9.0f} ms {t / base:5.2f}×" for t in times.values()]
        print(f"{label:>28} | " + " | ".join(cells))
    print(
        "\nEach cell: median time to write the whole file, and its ratio to "
        "reports.csv\nwritten in the same run."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        run(sizes, args.repeat)
        return
    from tests.own_servers import OwnPostgres

    cluster = OwnPostgres.on_a_free_port()
    try:
        os.environ["DATABASE_URL"] = cluster.create_database("deniable_exports")
        run(sizes, args.repeat)
    finally:
        cluster.destroy()


if __name__ == "__main__":
    main()
