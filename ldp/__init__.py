"""Deniable's local differential privacy maths (numpy/scipy only).

Build a mechanism from a spec, randomize, aggregate support counts, estimate
with one interface for every family (:class:`Estimate`), and plan sample
sizes.

Examples
--------
>>> import numpy as np
>>> import ldp
>>> mechanism = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
>>> rng = np.random.default_rng(7)
>>> answers = rng.choice(3, size=2000, p=[0.5, 0.3, 0.2])
>>> reports = mechanism.randomize(answers, rng)
>>> estimate = mechanism.estimate(mechanism.aggregate(reports))
>>> estimate.estimate.round(2)
array([0.5 , 0.29, 0.21])
"""

from ldp.counts import SupportCounts
from ldp.estimators.base import Estimate
from ldp.estimators.channel import ChannelEstimate
from ldp.estimators.frequency import FrequencyEstimate
from ldp.estimators.intervals import ConfidenceInterval, critical_value
from ldp.estimators.mean import MeanEstimate
from ldp.estimators.multiselect import MultiSelectEstimate
from ldp.mechanisms import Mechanism, build
from ldp.planning import (
    margin_of_error,
    mean_margin_of_error,
    mean_sample_size,
    mean_worst_case_variance,
    power,
    sample_size,
    sample_size_for_power,
    variance_at_zero,
    worst_case_variance,
)
from ldp.recommendation import (
    Alternative,
    Recommendation,
    recommend,
    recommend_multiselect,
    recommend_numeric,
)
from ldp.sampling import uniform_below
from ldp.spec.validation import EPSILON_MAX, K_MAX, MECHANISMS, SPEC_VERSION

__all__ = [
    "EPSILON_MAX",
    "K_MAX",
    "MECHANISMS",
    "SPEC_VERSION",
    "Alternative",
    "ChannelEstimate",
    "ConfidenceInterval",
    "Estimate",
    "FrequencyEstimate",
    "MeanEstimate",
    "Mechanism",
    "MultiSelectEstimate",
    "Recommendation",
    "SupportCounts",
    "build",
    "critical_value",
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
