"""Aggregation + estimation speed of every frequency oracle, against numpy.bincount.

Usage::

    python benchmarks/aggregate.py [--n 1000000] [--k 1024] [--repeat 3]

For n reports over k answers it randomizes once (not timed), then times
``aggregate`` followed by ``estimate`` (best of ``--repeat`` runs) and prints the
time as a ratio to ``numpy.bincount`` over the same n integers, measured in the
same run so that a busy machine slows both alike.  Binary mechanisms use k = 2;
ordinal, numeric (a 1,001-level grid) and multi-select ones use their own domains.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import ldp

SPECS = [
    {
        "mechanism": "forced_response",
        "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
    },
    {"mechanism": "warner", "epsilon": 1.0},
    {"mechanism": "grr", "epsilon": 1.0},
    {"mechanism": "sue", "epsilon": 1.0},
    {"mechanism": "oue", "epsilon": 1.0},
    {"mechanism": "olh", "epsilon": 1.0},
    {"mechanism": "hadamard", "epsilon": 1.0},
]
# Ordinal, numeric and multi-select questions have their own domains.
OTHER_SPECS = [
    {"mechanism": "ordinal", "k": 101, "epsilon": 1.0},
    {"mechanism": "geometric", "low": "0", "high": "1000", "step": "1", "epsilon": 1.0},
    {"mechanism": "gaussian", "low": "0", "high": "1000", "step": "1", "epsilon": 1.0},
    {"mechanism": "duchi", "low": "0", "high": "1000", "step": "1", "epsilon": 1.0},
    {"mechanism": "piecewise", "low": "0", "high": "1000", "step": "1", "epsilon": 1.0},
    {"mechanism": "multi_rr", "k": 64, "epsilon": 4.0},
    {"mechanism": "padding_sampling", "k": 1024, "ell": 4, "epsilon": 1.0},
]


def answers(mechanism, n: int, rng: np.random.Generator):
    """n random true answers in the mechanism's input domain."""
    name = mechanism.name
    if name == "multi_rr":
        return rng.random((n, mechanism.k)) < 0.2
    if name == "padding_sampling":
        chosen = rng.integers(0, mechanism.k, size=(n, mechanism.ell))
        return [sorted(set(row.tolist())) for row in chosen]
    size = mechanism.m if hasattr(mechanism, "m") else mechanism.k
    return rng.integers(0, size, size=n)


def domain(mechanism) -> str:
    if hasattr(mechanism, "m"):
        return f"m={mechanism.m}"
    if mechanism.name == "padding_sampling":
        return f"k={mechanism.k},ℓ={mechanism.ell}"
    return f"k={mechanism.k}"


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """Best wall-clock time of ``repeat`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    baseline_values = rng.integers(0, args.k, size=args.n)
    baseline = best_of(
        args.repeat, lambda: np.bincount(baseline_values, minlength=args.k)
    )
    print(f"n = {args.n:,}  k = {args.k}  (binary mechanisms: k = 2)")
    print(f"numpy.bincount baseline: {baseline * 1e3:.2f} ms")
    print(
        f"{'mechanism':<18}{'domain':>12}{'aggregate+estimate':>20}{'× bincount':>12}"
    )
    requested_specs = [
        {
            **spec,
            "k": 2 if spec["mechanism"] in {"forced_response", "warner"} else args.k,
        }
        for spec in SPECS
    ] + OTHER_SPECS
    for requested in requested_specs:
        mechanism = ldp.build(requested)
        reports = mechanism.randomize(answers(mechanism, args.n, rng), rng)

        def run(mechanism=mechanism, reports=reports):
            return mechanism.estimate(mechanism.aggregate(reports))

        seconds = best_of(args.repeat, run)
        print(
            f"{mechanism.name:<18}{domain(mechanism):>12}{seconds * 1e3:>17.1f} ms"
            f"{seconds / baseline:>12.1f}"
        )


if __name__ == "__main__":
    main()
