"""The analysis tests' fixtures, for the tests with real workers and Redis."""

from tests.surveys.analysis.conftest import (  # noqa: F401  (fixtures)
    fast_password_hashing,
    researcher,
)
from tests.surveys.conftest import _rate_limits_off  # noqa: F401  (autouse)
