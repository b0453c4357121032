"""The analysis tests' fixtures, for the dashboards driven in Chromium."""

from tests.surveys.analysis.conftest import fast_password_hashing  # noqa: F401
from tests.surveys.conftest import _rate_limits_off  # noqa: F401  (autouse)
