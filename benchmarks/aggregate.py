"""Aggregation + estimation speed of every frequency oracle, against numpy.bincount.

Usage::

    python benchmarks/aggregate.py [--n 1000000] [--k 1024] [--repeat 5] [--runs 3]

For n reports over k answers it randomizes once (not timed), then times
``aggregate`` followed by ``estimate`` (best of ``--repeat`` runs) and prints the
time as a ratio to ``numpy.bincount`` over the same n integers, measured in the
same run so that a busy machine slows both alike.  Binary mechanisms use k = 2;
ordinal, numeric (a 1,001-level grid) and multi-select ones use their own domains.

``before`` is the earlier row-by-row counting code, replaced by the
aggregation kernels (kept below, with its validation, so both are measured on the same
data in the same run; the two must give identical counts); ``after`` is
``ldp`` as it is.  ``oue (packed)`` and ``sue (packed)`` aggregate the same
reports stored as ``np.packbits`` rows.  ``peak MB`` is the largest extra
memory one aggregate + estimate allocates (``tracemalloc``, which numpy
reports to), next to the reports' own size.  The whole measurement is repeated
``--runs`` times on the same data; the summary gives min / median / max of each
ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

import ldp
from ldp.counts import SupportCounts
from ldp.mechanisms.categorical import CategoricalMechanism
from ldp.mechanisms.hadamard import HadamardResponse
from ldp.mechanisms.multiselect.rr import MultiRandomizedResponse
from ldp.mechanisms.olh import PRIME, OptimizedLocalHashing
from ldp.mechanisms.unary import UnaryEncoding

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


CLOCK = time.perf_counter


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """Best time of ``repeat`` calls (seconds) on ``CLOCK``."""
    times = []
    for _ in range(repeat):
        start = CLOCK()
        run()
        times.append(CLOCK() - start)
    return min(times)


def before_counts(mechanism: Any, reports: Any) -> Any:
    """Support counts of an array of reports as ``ldp`` computed them before.

    Returns None for mechanisms whose counting did not change.
    """
    array = np.asarray(reports)
    if isinstance(mechanism, (UnaryEncoding, MultiRandomizedResponse)):
        if array.size and (array.dtype.kind not in "iub" or array.max() > 1):
            raise ValueError("reports must be bits")
        if array.size and array.min() < 0:
            raise ValueError("reports must be bits")
        return array.sum(axis=0, dtype=np.int64)
    if isinstance(mechanism, OptimizedLocalHashing):
        if array.size and (
            array.min() < 0
            or array[:, :2].max() >= PRIME
            or array[:, 2].max() >= mechanism.g
        ):
            raise ValueError("olh reports out of range")
        array = array.astype(np.int64)
        counts = np.zeros(mechanism.k, dtype=np.int64)
        g = np.uint32(mechanism.g)
        prime = np.uint32(PRIME)
        for start in range(0, array.shape[0], 1 << 16):
            chunk = array[start : start + (1 << 16)]
            a = chunk[:, 0].astype(np.uint32)
            y = chunk[:, 2].astype(np.uint32)
            r = chunk[:, 1].astype(np.uint32)
            hashed = np.empty_like(r)
            for v in range(mechanism.k):
                np.remainder(r, g, out=hashed)
                counts[v] += np.count_nonzero(hashed == y)
                r += a
                r -= prime * (r >= prime)
        return counts
    if isinstance(mechanism, HadamardResponse):
        order = mechanism.order
        if array.size and (
            array.min() < 0 or array[:, 0].max() >= order or array[:, 1].max() > 1
        ):
            raise ValueError("hadamard reports out of range")
        array = array.astype(np.int64)
        ones = array[:, 1] == 1
        totals = np.bincount(array[ones, 0], minlength=order) - np.bincount(
            array[~ones, 0], minlength=order
        )
        return (array.shape[0] + before_walsh_hadamard(totals)[: mechanism.k]) // 2
    if isinstance(mechanism, CategoricalMechanism):
        if array.size and (array.min() < 0 or array.max() >= mechanism.k):
            raise ValueError("reports out of range")
        return np.bincount(array.astype(np.int64), minlength=mechanism.k)
    return None


def before_walsh_hadamard(values: Any) -> Any:
    """The transform as it was: a copy of the upper half at every level."""
    result = np.array(values, copy=True)
    h = 1
    while h < result.size:
        blocks = result.reshape(-1, 2, h)
        upper, lower = blocks[:, 0, :].copy(), blocks[:, 1, :]
        blocks[:, 0, :] += lower
        blocks[:, 1, :] = upper - lower
        h *= 2
    return result


def peak_bytes(run: Callable[[], object]) -> int:
    """Peak memory allocated while ``run()`` executes (bytes, tracemalloc)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def cases(args: argparse.Namespace, rng: np.random.Generator) -> list[Any]:
    """(label, mechanism, reports, after, before) for every row, randomized once."""
    requested_specs = [
        {
            **spec,
            "k": 2 if spec["mechanism"] in {"forced_response", "warner"} else args.k,
        }
        for spec in SPECS
    ] + OTHER_SPECS
    rows = []
    for requested in requested_specs:
        mechanism = ldp.build(requested)
        reports = mechanism.randomize(answers(mechanism, args.n, rng), rng)

        def after(mechanism=mechanism, reports=reports):
            return mechanism.estimate(mechanism.aggregate(reports))

        before = None
        if before_counts(mechanism, reports[:0]) is not None:

            def before(mechanism=mechanism, reports=reports):
                counts = before_counts(mechanism, reports)
                stat = SupportCounts(reports.shape[0], counts, mechanism.spec)
                return mechanism.estimate(stat)

            expected = before_counts(mechanism, reports)
            if not np.array_equal(mechanism.aggregate(reports).counts, expected):
                raise AssertionError(f"{mechanism.name}: counts differ from before")
        rows.append((mechanism.name, mechanism, reports, after, before))
        if isinstance(mechanism, UnaryEncoding):
            packed = np.packbits(reports, axis=1)

            def after_packed(mechanism=mechanism, packed=packed):
                return mechanism.estimate(mechanism.aggregate_packed(packed))

            if mechanism.aggregate_packed(packed) != mechanism.aggregate(reports):
                raise AssertionError(f"{mechanism.name}: packed counts differ")
            rows.append(
                (f"{mechanism.name} (packed)", mechanism, packed, after_packed, None)
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="wall: elapsed time; cpu: this process's CPU time (a shared machine)",
    )
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    rng = np.random.default_rng(args.seed)

    baseline_values = rng.integers(0, args.k, size=args.n)
    rows = cases(args, rng)
    print(
        f"n = {args.n:,}  k = {args.k}  (binary mechanisms: k = 2)  "
        f"clock: {args.clock}",
        flush=True,
    )
    print(
        f"{'mechanism':<20}{'domain':>12}{'input MB':>10}"
        f"{'peak MB before':>16}{'peak MB after':>15}"
    )
    for label, mechanism, reports, after, before in rows:
        peak_before = f"{peak_bytes(before) / 1e6:.1f}" if before else "-"
        print(
            f"{label:<20}{domain(mechanism):>12}{reports.nbytes / 1e6:>10.1f}"
            f"{peak_before:>16}{peak_bytes(after) / 1e6:>15.1f}",
            flush=True,
        )
    ratios: dict[str, list[tuple[float, float]]] = {}
    for run_number in range(1, args.runs + 1):
        baseline = best_of(
            args.repeat, lambda: np.bincount(baseline_values, minlength=args.k)
        )
        print(f"\nrun {run_number}/{args.runs}")
        print(f"numpy.bincount baseline: {baseline * 1e3:.2f} ms")
        print(
            f"{'mechanism':<20}{'domain':>12}{'before ms':>11}{'after ms':>10}"
            f"{'before ×':>10}{'after ×':>9}"
        )
        for label, mechanism, _reports, after, before in rows:
            after_s = best_of(args.repeat, after)
            before_s = best_of(args.repeat, before) if before else float("nan")
            ratios.setdefault(label, []).append(
                (before_s / baseline, after_s / baseline)
            )
            before_ms = f"{before_s * 1e3:.1f}" if before else "-"
            before_x = f"{before_s / baseline:.1f}" if before else "-"
            print(
                f"{label:<20}{domain(mechanism):>12}{before_ms:>11}"
                f"{after_s * 1e3:>10.1f}{before_x:>10}{after_s / baseline:>9.1f}",
                flush=True,
            )
    print(f"\n× bincount over {args.runs} runs: min / median / max")
    print(f"{'mechanism':<20}{'before':>28}{'after':>28}")
    for label, pairs in ratios.items():
        print(
            f"{label:<20}{spread([p[0] for p in pairs]):>28}"
            f"{spread([p[1] for p in pairs]):>28}"
        )


def spread(values: list[float]) -> str:
    """``min / median / max`` of the ratios, or ``-`` when not measured."""
    if any(np.isnan(values)):
        return "-"
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


if __name__ == "__main__":
    main()
