"""The Gaussian's folded tail is capped: more noise is refused, not allocated.

Before the cap, ``gaussian`` on 0–10 (step 1) at ε = 1e-6 widened σ to about
7·10^6 and summed ``40σ`` tail terms: a 2.3 GiB array.
"""

from __future__ import annotations

import math
import re
import tracemalloc

import pytest

import ldp
from ldp.exact import UndeliverableEpsilon
from ldp.mechanisms.numeric.gaussian import (
    TAIL_TERMS_MAX,
    DiscreteGaussian,
    sigma_max,
    tail_terms,
)
from ldp.spec.validation import validate_spec

SPEC = {"mechanism": "gaussian", "low": "0", "high": "10", "step": "1"}


def test_sigma_max_is_the_largest_sigma_whose_tail_fits_the_cap():
    for m in (2, 11, 1001):
        assert tail_terms(m, sigma_max(m)) <= TAIL_TERMS_MAX
        assert tail_terms(m, sigma_max(m) + 1) > TAIL_TERMS_MAX


def test_a_kernel_beyond_the_cap_is_refused_before_anything_is_allocated():
    params, _ = validate_spec({**SPEC, "epsilon": 1.0})
    mechanism = DiscreteGaussian(params)
    tracemalloc.start()
    try:
        with pytest.raises(UndeliverableEpsilon, match="tail terms"):
            mechanism._real_kernel(math.log(7e6))  # what ε = 1e-6 asked for
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2**20


@pytest.mark.slow
def test_reported_epsilon_is_refused_within_the_cap_and_names_the_minimum():
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="too small for gaussian") as error:
            ldp.build({**SPEC, "epsilon": 1e-6})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak <= 4 * 8 * TAIL_TERMS_MAX  # a few arrays of the capped tail
    smallest = float(re.search(r"such as epsilon = ([0-9.e+-]+)", str(error.value))[1])
    mechanism = ldp.build({**SPEC, "epsilon": smallest})
    assert mechanism.epsilon_exact > 0
    assert mechanism.sigma <= sigma_max(mechanism.k)
