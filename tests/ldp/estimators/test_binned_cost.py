"""The binned distribution's work depends on the channel and the bins, not on n.

A tally of 10^7 reports that is 10^4 times a tally of 10^3 (the same shares)
runs the very same sequence of calls, Python and numpy alike: the fit works on
``c/n`` and the intervals on the covariance of the debiased shares, whose size
is the number of levels.  Counted with :func:`sys.setprofile`, not timed.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ldp
from ldp.counts import SupportCounts
from ldp.estimators.binned import mechanism_distribution

LDP_FOLDER = str(Path(ldp.__file__).parent)

SPECS = [
    {"mechanism": "geometric", "low": "0", "high": "40", "step": "1", "epsilon": 1.0},
    {"mechanism": "piecewise", "low": "0", "high": "40", "step": "1", "epsilon": 1.0},
    {"mechanism": "oue", "k": 5, "epsilon": 1.0},
]


def _calls(function: Callable[[], Any]) -> list[tuple[str, str]]:
    """Every call made in ``ldp``'s own code while ``function`` runs, in
    order: its functions, and the functions (Python or C) they call.

    What runs outside ``ldp`` on its own schedule is left out: a garbage
    collection's finalizers of whatever earlier tests in the process left
    behind, or the test runner's recording of a warning."""
    seen: list[tuple[str, str]] = []

    def record(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            caller = frame.f_back
            if _in_ldp(frame) or (caller is not None and _in_ldp(caller)):
                seen.append((event, frame.f_code.co_qualname))
        elif event == "c_call" and _in_ldp(frame):
            seen.append((event, getattr(arg, "__qualname__", repr(arg))))

    gc.collect()
    gc.disable()  # a finalizer's caller is wherever the collection began
    sys.setprofile(record)
    try:
        function()
    finally:
        sys.setprofile(None)
        gc.enable()
    return seen


def _in_ldp(frame: Any) -> bool:
    return frame.f_code.co_filename.startswith(LDP_FOLDER)


def _interval_work(mechanism: Any, stat: SupportCounts) -> Any:
    cuts = None if mechanism.input_values() is None else [8, 16, 24, 32]
    d = mechanism_distribution(mechanism, stat, cuts)
    assert d is not None
    return d.confidence_interval(0.95), d.median_interval(0.95)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s["mechanism"])
def test_ten_thousand_times_the_reports_run_the_same_calls(spec):
    mechanism = ldp.build(spec)
    rng = np.random.default_rng(5)
    small = mechanism.aggregate(mechanism.randomize(rng.integers(0, 5, 1_000), rng))
    large = SupportCounts(small.n * 10_000, small.counts * 10_000, small.spec)
    _interval_work(mechanism, small)  # fills the mechanism's own caches
    few = _calls(lambda: _interval_work(mechanism, small))
    many = _calls(lambda: _interval_work(mechanism, large))
    assert len(few) == len(many) > 100
    assert few == many


def test_the_intervals_scale_with_one_over_root_n_at_the_same_shares():
    mechanism = ldp.build(SPECS[0])
    rng = np.random.default_rng(5)
    small = mechanism.aggregate(mechanism.randomize(rng.integers(0, 5, 1_000), rng))
    large = SupportCounts(small.n * 10_000, small.counts * 10_000, small.spec)
    few = mechanism_distribution(mechanism, small, [8, 16])
    many = mechanism_distribution(mechanism, large, [8, 16])
    np.testing.assert_allclose(many.covariance * 10_000, few.covariance, rtol=1e-9)
    np.testing.assert_allclose(many.shares, few.shares, atol=1e-12)
