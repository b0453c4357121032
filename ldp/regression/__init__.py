"""Regression with a randomized outcome and plain covariates.

- :mod:`~ldp.regression.logistic`: a randomized yes/no report through its
  known channel, by maximum likelihood; :mod:`~ldp.regression.logistic_result`
  holds its result.
- :mod:`~ldp.regression.linear`: a protected number through its unbiased
  per-report scores, with sandwich standard errors.
- :mod:`~ldp.regression.design`: design matrices with named, dummy-coded
  columns.
"""

from ldp.regression.design import DesignMatrix, design_matrix
from ldp.regression.linear import LinearRegressionResult, score_regression
from ldp.regression.logistic import (
    ConvergenceError,
    NotIdentifiable,
    logistic_regression,
)
from ldp.regression.logistic_result import (
    LikelihoodRatioTest,
    LogisticRegressionResult,
)
from ldp.regression.table import RegressionTable

__all__ = [
    "ConvergenceError",
    "DesignMatrix",
    "LikelihoodRatioTest",
    "LinearRegressionResult",
    "LogisticRegressionResult",
    "NotIdentifiable",
    "RegressionTable",
    "design_matrix",
    "logistic_regression",
    "score_regression",
]
