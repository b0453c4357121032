"""Frequency oracles: the formulas and the result class, side by side.

Every oracle's support count ``C_v`` is Binomial(n, λ_v) with
``λ_v = q_v + f_v (p_v − q_v)``: :mod:`~ldp.estimators.frequency.formulas`
holds the estimators, variances and intervals, and
:mod:`~ldp.estimators.frequency.result` the :class:`FrequencyEstimate` that
carries them for one aggregate.
"""

from ldp.estimators.frequency.formulas import (
    CONSISTENT_METHODS,
    METHODS,
    confidence_bounds,
    standard_error,
    unbiased,
    variance,
    variance_at_zero,
    worst_case_variance,
)
from ldp.estimators.frequency.result import (
    FrequencyEstimate,
    frequency_estimate,
)

__all__ = [
    "CONSISTENT_METHODS",
    "METHODS",
    "FrequencyEstimate",
    "confidence_bounds",
    "frequency_estimate",
    "standard_error",
    "unbiased",
    "variance",
    "variance_at_zero",
    "worst_case_variance",
]
