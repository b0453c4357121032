"""Worker time of a question's results with and without its binned distribution.

Usage::

    .venv/bin/python benchmarks/bins_cost.py [--levels 201] [--n 500]
        [--mechanisms geometric piecewise] [--repeat 1]

What a worker does per protected question when it computes a snapshot is
``surveys.analysis.results.estimates.question_result`` (the rest of a snapshot, a few
queries and the JSON, does not depend on the question's size).  For a number
question on ``--levels`` levels (0, 1, …, levels − 1) at ε = 1, with ``--n``
reports randomized by the Python reference from a skewed truth
(``min(Geometric(1/40), high)``, seeded), this times, in the same run:

* the baseline: ``question_result`` without the binned distribution (the
  unbiased per-level shares, their intervals, the consistent column and the
  mean; what every other kind of question costs);
* the same with the binned distribution (constrained maximum likelihood by EM
  and ``bins.RESAMPLES`` parametric-bootstrap refits, default bins);

each with the survey's consistent method set to the projection ("norm-sub")
and to maximum likelihood ("mle"), and prints CPU seconds and the ratio of each to
the baseline.  Runs in this process with ldp and Django's settings (no
database is queried).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# One BLAS thread: CPU time then counts work, not threads spinning while the
# machine is shared (set before numpy is first imported).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


def setup() -> None:
    for name in ("CACHE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        os.environ.pop(name, None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    import django

    django.setup()


def best(function: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds of this process's CPU time
    (steadier than the wall clock on a machine that other work shares)."""
    times = []
    for _ in range(repeat):
        started = time.process_time()
        function()
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=201)
    parser.add_argument("--n", type=int, default=500, help="reports")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--mechanisms", nargs="+", default=["geometric", "piecewise"])
    parser.add_argument("--repeat", type=int, default=1, help="best of")
    args = parser.parse_args()
    setup()
    import numpy as np

    import ldp
    from surveys.analysis.results import bins, estimates
    from surveys.authoring.models import Question

    question = Question(pk=1, kind="numeric", text="Hours", position=1, spec_revision=1)
    high = args.levels - 1
    print(
        f"levels {args.levels} (0–{high}), n = {args.n}, ε = {args.epsilon:g}, "
        f"{bins.RESAMPLES} bootstrap resamples, best of {args.repeat}"
    )
    header = (
        f"{'mechanism':<10} {'channel':>10} {'consistent':>10} "
        f"{'no bins s':>10} {'bins s':>9} {'ratio':>8}"
    )
    print(header)
    print("-" * len(header))
    for name in args.mechanisms:
        mechanism = ldp.build(
            {
                "mechanism": name,
                "low": 0,
                "high": high,
                "step": 1,
                "epsilon": args.epsilon,
            }
        )
        rng = np.random.default_rng(2026)
        truth = np.minimum(rng.geometric(1 / 40, args.n), high)
        stat = mechanism.aggregate(mechanism.randomize(truth, rng))
        shape = "×".join(str(s) for s in mechanism.channel_matrix().shape)

        def result(method: str, mechanism=mechanism, stat=stat) -> object:
            return estimates.question_result(
                question, mechanism, stat, target_margin=0.05, consistent_method=method
            )

        with mock.patch.object(estimates, "BINNED_KINDS", ()):
            baseline = best(lambda: result("norm-sub"), max(args.repeat, 3))
            plain_mle = best(lambda: result("mle"), args.repeat)
        assert result("norm-sub").distribution is not None  # noqa: S101
        binned = best(lambda: result("norm-sub"), args.repeat)
        binned_mle = best(lambda: result("mle"), args.repeat)
        for method, without, with_bins in (
            ("norm-sub", baseline, binned),
            ("mle", plain_mle, binned_mle),
        ):
            print(
                f"{name:<10} {shape:>10} {method:>10} {without:>10.3f} "
                f"{with_bins:>9.2f} {with_bins / baseline:>8.0f}"
            )
    print("ratio: seconds with bins over the baseline (no bins, norm-sub)")


if __name__ == "__main__":
    main()
