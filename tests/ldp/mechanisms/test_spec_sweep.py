"""A Hypothesis sweep over specs: refused clearly, or delivered honestly.

For every mechanism, ε from 1e-12 to 20 (log-uniform, so tiny values are as
likely as ordinary ones) and answer domains from the smallest to the caps,
``ldp.build`` either raises a ``ValueError`` naming the spec field, or gives a
mechanism whose delivered ε' satisfies ``0 < ε' <= ε`` and
``ε − ε' <= 10^-6 · max(1, ε)``, whose compile allocated no more than the
documented cap, and whose estimate from valid counts is finite everywhere.

The families that compile directly (closed forms) run in the fast lane with
a bounded number of examples and grids up to 41 levels; the calibrated ones
(ordinal, geometric, Gaussian: a bisection per build) and every grid family
at the 1001-level cap (seconds per build and estimate) run in the slow tier.
"""

from __future__ import annotations

import math
import tracemalloc
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ldp
from ldp.exact import epsilon_gap_allowed
from ldp.mechanisms.multiselect.rr import MULTI_RR_K_MAX
from ldp.mechanisms.numeric.gaussian import TAIL_TERMS_MAX
from ldp.mechanisms.ordinal import ORDINAL_K_MAX
from ldp.spec.grid import GRID_LEVELS_MAX
from ldp.spec.validation import K_MAX

BUILD_BYTES_MAX = 4 * 8 * TAIL_TERMS_MAX
"""Most memory one build may trace (128 MiB): a few float64 arrays of the
Gaussian's capped tail; every other family stays far below."""

REPORTS = 12

EPSILONS = st.floats(min_value=math.log(1e-12), max_value=math.log(20)).map(math.exp)


def _k(cap: int) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(2, 8), st.integers(2, cap), st.just(cap))


@st.composite
def direct_specs(draw: st.DrawFn) -> dict[str, Any]:
    """Specs of the families whose weights are closed forms."""
    mechanism = draw(
        st.sampled_from(
            [
                "warner",
                "grr",
                "sue",
                "oue",
                "olh",
                "hadamard",
                "multi_rr",
                "padding_sampling",
                "duchi",
                "piecewise",
            ]
        )
    )
    spec: dict[str, Any] = {"mechanism": mechanism, "epsilon": draw(EPSILONS)}
    if mechanism in ("duchi", "piecewise"):
        return {**spec, **draw(grids(41))}
    if mechanism == "warner":
        return spec
    if mechanism == "multi_rr":
        spec["k"] = draw(_k(MULTI_RR_K_MAX))
    elif mechanism in ("sue", "oue"):
        spec["k"] = draw(_k(256))  # k bits per report: the caps cost time only
    else:
        spec["k"] = draw(_k(K_MAX))
    if mechanism == "padding_sampling":
        spec["ell"] = draw(st.integers(1, spec["k"]))
    if mechanism == "olh" and draw(st.booleans()):
        spec["g"] = draw(st.integers(2, 2**16))
    return spec


@st.composite
def grids(draw: st.DrawFn, most: int) -> dict[str, str]:
    levels = draw(st.one_of(st.integers(2, 12), st.integers(2, most), st.just(most)))
    return {"low": "0", "high": str(levels - 1), "step": "1"}


@st.composite
def calibrated_specs(draw: st.DrawFn) -> dict[str, Any]:
    """Specs of the calibrated families, and every grid family at the caps."""
    mechanism = draw(
        st.sampled_from(["ordinal", "geometric", "gaussian", "duchi", "piecewise"])
    )
    spec: dict[str, Any] = {"mechanism": mechanism, "epsilon": draw(EPSILONS)}
    if mechanism == "ordinal":
        spec["k"] = draw(_k(ORDINAL_K_MAX))
        return spec
    return {**spec, **draw(grids(GRID_LEVELS_MAX))}


def _answers(mechanism: ldp.Mechanism, rng: np.random.Generator) -> Any:
    if mechanism.name in ("multi_rr", "padding_sampling"):
        most = getattr(mechanism, "ell", mechanism.k)
        return [
            sorted(rng.choice(mechanism.k, int(rng.integers(0, most + 1)), False))
            for _ in range(REPORTS)
        ]
    return rng.integers(0, mechanism.k, REPORTS)


def _finite(value: Any) -> bool:
    return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))


def check_spec(spec: dict[str, Any]) -> None:
    tracemalloc.start()
    try:
        mechanism = ldp.build(spec)
    except ValueError as error:
        assert "spec field" in str(error), str(error)
        return
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= BUILD_BYTES_MAX
    requested, delivered = Decimal(spec["epsilon"]), mechanism.epsilon_exact
    assert 0 < delivered <= requested
    assert requested - delivered <= epsilon_gap_allowed(spec["epsilon"])
    rng = np.random.default_rng(7)
    estimate = mechanism.estimate(
        mechanism.aggregate(mechanism.randomize(_answers(mechanism, rng), rng))
    )
    assert _finite(estimate.estimate)
    assert _finite(estimate.standard_error)
    mean = estimate.mean()
    if mean is not None:
        assert _finite([mean.estimate, mean.standard_error])
        interval = mean.confidence_interval(0.95)
        assert _finite([interval.low, interval.high])


SWEEP = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@SWEEP
@given(direct_specs())
def test_direct_specs_are_refused_or_delivered_within_tolerance(spec):
    check_spec(spec)


@pytest.mark.slow
@settings(SWEEP, max_examples=25)
@given(calibrated_specs())
def test_calibrated_specs_are_refused_or_delivered_within_tolerance(spec):
    check_spec(spec)


@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "warner", "epsilon": 1e-12},
        {"mechanism": "grr", "k": K_MAX, "epsilon": 1e-7},
        {"mechanism": "multi_rr", "k": MULTI_RR_K_MAX, "epsilon": 1e-8},
        {"mechanism": "padding_sampling", "k": 8, "ell": 2, "epsilon": 1e-7},
        {
            "mechanism": "piecewise",
            "low": "0",
            "high": "10",
            "step": "1",
            "epsilon": 1e-9,
        },
        {"mechanism": "grr", "k": K_MAX, "epsilon": 20.0},
    ],
)
def test_reported_and_extreme_specs_pass_the_sweep_check(spec):
    check_spec(spec)
