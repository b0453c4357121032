"""Deniable's local differential privacy maths (numpy/scipy only).

Build a mechanism from a spec, randomize, aggregate support counts, estimate
frequencies with intervals, and plan sample sizes.
"""

from ldp.estimators.multiselect import MultiSelectEstimate
from ldp.mechanisms import Mechanism, build
from ldp.planning import (
    margin_of_error,
    power,
    sample_size,
    sample_size_for_power,
    variance_at_zero,
    worst_case_variance,
)
from ldp.planning_numeric import (
    mean_margin_of_error,
    mean_sample_size,
    mean_worst_case_variance,
)
from ldp.recommendation import (
    Alternative,
    Recommendation,
    recommend,
    recommend_multiselect,
    recommend_numeric,
)
from ldp.results import ConfidenceInterval, FrequencyEstimate, SupportCounts
from ldp.results_numeric import DistributionEstimate, MeanEstimate
from ldp.sampling import uniform_below
from ldp.spec.validation import EPSILON_MAX, K_MAX, MECHANISMS, SPEC_VERSION

__all__ = [
    "EPSILON_MAX",
    "K_MAX",
    "MECHANISMS",
    "SPEC_VERSION",
    "Alternative",
    "ConfidenceInterval",
    "DistributionEstimate",
    "FrequencyEstimate",
    "MeanEstimate",
    "Mechanism",
    "MultiSelectEstimate",
    "Recommendation",
    "SupportCounts",
    "build",
    "margin_of_error",
    "mean_margin_of_error",
    "mean_sample_size",
    "mean_worst_case_variance",
    "power",
    "recommend",
    "recommend_multiselect",
    "recommend_numeric",
    "sample_size",
    "sample_size_for_power",
    "uniform_below",
    "variance_at_zero",
    "worst_case_variance",
]
