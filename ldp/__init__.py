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
from ldp.estimators.binned import (
    BinnedDistribution,
    binned_distribution,
    mechanism_distribution,
)
from ldp.estimators.channel import ChannelEstimate
from ldp.estimators.frequency import FrequencyEstimate
from ldp.estimators.intervals import ConfidenceInterval, critical_value
from ldp.estimators.mean import MeanEstimate
from ldp.estimators.multiselect import MultiSelectEstimate
from ldp.estimators.weighted import weighted_estimate, weighted_mean
from ldp.estimators.weighted_result import WeightedEstimate
from ldp.mechanisms import Mechanism, build
from ldp.mechanisms.binary import unrelated_question_design, unrelated_question_spec
from ldp.mechanisms.registry import REGISTRY
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
from ldp.regression import (
    ConvergenceError,
    DesignMatrix,
    LikelihoodRatioTest,
    LinearRegressionResult,
    LogisticRegressionResult,
    NotIdentifiable,
    RegressionTable,
    design_matrix,
    logistic_regression,
    score_regression,
)
from ldp.sampling import uniform_below
from ldp.spec.validation import EPSILON_MAX, K_MAX, SPEC_VERSION
from ldp.weighting import (
    CalibrationError,
    CalibrationWeights,
    kish_design_effect,
    post_stratify,
    rake,
)

MECHANISMS = tuple(REGISTRY)
"""Every mechanism's spec name, in the order they are offered."""

__all__ = [
    "EPSILON_MAX",
    "K_MAX",
    "MECHANISMS",
    "SPEC_VERSION",
    "Alternative",
    "BinnedDistribution",
    "CalibrationError",
    "CalibrationWeights",
    "ChannelEstimate",
    "ConfidenceInterval",
    "ConvergenceError",
    "DesignMatrix",
    "Estimate",
    "FrequencyEstimate",
    "LikelihoodRatioTest",
    "LinearRegressionResult",
    "LogisticRegressionResult",
    "MeanEstimate",
    "Mechanism",
    "MultiSelectEstimate",
    "NotIdentifiable",
    "Recommendation",
    "RegressionTable",
    "SupportCounts",
    "WeightedEstimate",
    "binned_distribution",
    "build",
    "critical_value",
    "design_matrix",
    "kish_design_effect",
    "logistic_regression",
    "margin_of_error",
    "mean_margin_of_error",
    "mean_sample_size",
    "mean_worst_case_variance",
    "mechanism_distribution",
    "post_stratify",
    "power",
    "rake",
    "recommend",
    "recommend_multiselect",
    "recommend_numeric",
    "sample_size",
    "sample_size_for_power",
    "score_regression",
    "uniform_below",
    "unrelated_question_design",
    "unrelated_question_spec",
    "variance_at_zero",
    "weighted_estimate",
    "weighted_mean",
    "worst_case_variance",
]
