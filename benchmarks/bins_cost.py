"""Worker time of a number question's binned distribution, at several n.

Usage::

    .venv/bin/python benchmarks/bins_cost.py [--levels 201] [--n 500 10000 1000000]
        [--mechanisms geometric piecewise] [--repeat 1]

What a worker does per protected number question when it computes a snapshot
is ``surveys.analysis.results.estimates.question_result``; its binned
distribution (``bins.distribution``: the constrained maximum-likelihood fit
by EM, and the Wald and Woodruff intervals from the covariance of the
debiased level shares) is the part that costs.  For a number question on
``--levels`` levels (0, 1, …, levels − 1) at ε = 1, with each ``--n``
reports randomized by the Python reference from a skewed truth
(``min(Geometric(1/40), high)``, seeded), this times, in the same run:

* the baseline: ``question_result`` with the distribution already in the
  cache (what a snapshot costs when the question's tally did not change);
* the fit and intervals computed (``bins._computed``, no cache), what a
  snapshot costs once per change of the question's tally;

and prints CPU seconds, the ratio of the two, and whether the computation
is within the budget of 0.1 s per question.  Runs in this process with ldp
and Django's settings (a per-process cache; no database is queried).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

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


BUDGET = 0.1  # seconds of a worker per question, whatever n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=201)
    parser.add_argument("--n", type=int, nargs="+", default=[500, 10_000, 1_000_000])
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
        f"levels {args.levels} (0–{high}), ε = {args.epsilon:g}, "
        f"analytic intervals, best of {args.repeat}"
    )
    header = (
        f"{'mechanism':<10} {'channel':>9} {'n':>9} {'cached s':>9} "
        f"{'computed s':>10} {'ratio':>7} {'budget':>7}"
    )
    print(header)
    print("-" * len(header))
    for name in args.mechanisms:
        spec = {"mechanism": name, "low": 0, "high": high, "step": 1}
        mechanism = ldp.build({**spec, "epsilon": args.epsilon})
        shape = "×".join(str(s) for s in mechanism.channel_matrix().shape)
        for n in args.n:
            rng = np.random.default_rng(2026)
            truth = np.minimum(rng.geometric(1 / 40, n), high)
            stat = mechanism.aggregate(mechanism.randomize(truth, rng))
            labels = estimates.labels_for(question, mechanism)
            inputs = {"labels": labels, "numeric": True, "cuts": None}

            def computed(mechanism=mechanism, stat=stat, inputs=inputs) -> object:
                return bins._computed(mechanism, stat, **inputs)

            def cached(stat=stat, mechanism=mechanism) -> object:
                return estimates.question_result(
                    question, mechanism, stat, target_margin=0.05
                )

            cached()  # fills the cache
            baseline = best(cached, max(args.repeat, 3))
            seconds = best(computed, args.repeat)
            verdict = "within" if seconds <= BUDGET else "over"
            print(
                f"{name:<10} {shape:>9} {n:>9,} {baseline:>9.3f} {seconds:>10.2f} "
                f"{seconds / baseline:>7.0f} {verdict:>7}",
                flush=True,
            )
    print(f"budget: {BUDGET} s of CPU per question for the computed distribution")


if __name__ == "__main__":
    main()
