"""The collection tests' fixtures, for the respondent pages driven in Chromium."""

from tests.surveys.collection.conftest import (  # noqa: F401  (fixtures)
    kinds_survey,
    researcher,
    survey,
)
from tests.surveys.conftest import _rate_limits_off  # noqa: F401  (autouse)
