"""Tally refresh time against stored reports: incremental vs. a full recount.

Usage::

    DATABASE_URL=postgres://.../scratch python benchmarks/refresh.py \
        [--max 10000000] [--new 1000]

Needs a scratch PostgreSQL database (it is migrated and filled; nothing else
should use it).  For each size (10^4, 10^5, 10^6 stored reports by default, up
to ``--max``) it bulk-loads reports with COPY (randomized by the Python
reference mechanism), brings the tallies up to date (not timed), stores a
fixed batch of ``--new`` reports, then times, in the same run:

* the incremental refresh that folds in those new reports, and
* the full recount of every stored report (the baseline).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

from benchmarks.bulk import store_reports

SIZES = [10_000, 100_000, 1_000_000, 10_000_000]


def setup() -> None:
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("set DATABASE_URL to a scratch PostgreSQL database")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def make_survey():
    from surveys.accounts.models import User
    from surveys.authoring import services as authoring
    from surveys.authoring.mechanisms import PrivacyConfig

    owner = User.objects.create_user(f"bench-{uuid.uuid4().hex[:8]}")
    survey = authoring.survey_create(owner=owner, title="Refresh benchmark")
    authoring.question_create(
        survey=survey,
        text="Which one?",
        privacy=PrivacyConfig(
            kind="single_choice",
            options=("A", "B", "C", "D", "E", "F", "G", "H"),
            epsilon=1.0,
            mechanism="grr",
        ),
    )
    return authoring.survey_publish(survey=survey, user=owner)


def timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=float, default=1e6, help="largest size")
    parser.add_argument("--new", type=int, default=1_000, help="new reports")
    args = parser.parse_args()
    setup()
    from surveys.analysis.models import Tally
    from surveys.analysis.tallies import services

    rng = np.random.default_rng(20261122)
    survey = make_survey()
    stored = 0
    print(
        f"{'stored reports':>15} | {'incremental (+' + str(args.new) + ')':>20} | "
        f"{'full recount':>12} | {'recount / incr.':>15}"
    )
    print("-" * 72)
    for size in (s for s in SIZES if s <= args.max):
        store_reports(survey, size - args.new - stored, rng)
        services.tallies_refresh(survey_id=survey.pk)  # up to date, not timed
        store_reports(survey, args.new, rng)
        stored = size
        incremental = timed(lambda: services.tallies_refresh(survey_id=survey.pk))
        after_refresh = list(Tally.objects.values_list("stat", flat=True))
        recount = timed(lambda: services.tallies_recount(survey_id=survey.pk))
        if list(Tally.objects.values_list("stat", flat=True)) != after_refresh:
            sys.exit("the recount differs from the incremental refresh")
        print(
            f"{size:>15,} | {incremental:>18.3f} s | {recount:>10.3f} s | "
            f"{recount / incremental:>14.0f}×"
        )


if __name__ == "__main__":
    main()
