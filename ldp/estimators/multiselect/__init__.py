"""Shares of respondents who selected each option: formulas and result.

A multi-select answer is a set of options, so the quantity of interest is, per
option ``v``, the share ``f_v`` of respondents whose set contains ``v``; these
shares need not sum to 1.  :mod:`~ldp.estimators.multiselect.formulas` holds
the estimator, variances and intervals, :mod:`~ldp.estimators.multiselect.result`
the :class:`MultiSelectEstimate`.
"""

from ldp.estimators.multiselect.formulas import (
    CONSISTENT_METHODS,
    share_confidence_bounds,
    share_standard_error,
    share_variance,
    unbiased_shares,
    worst_case_share_variance,
)
from ldp.estimators.multiselect.result import (
    MultiSelectEstimate,
    multiselect_estimate,
)

__all__ = [
    "CONSISTENT_METHODS",
    "MultiSelectEstimate",
    "multiselect_estimate",
    "share_confidence_bounds",
    "share_standard_error",
    "share_variance",
    "unbiased_shares",
    "worst_case_share_variance",
]
