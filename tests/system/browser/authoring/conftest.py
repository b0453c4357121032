"""The builder's tests in Chromium: fast password hashing, rate limits off."""

from tests.surveys.authoring.conftest import fast_password_hashing  # noqa: F401
from tests.surveys.conftest import _rate_limits_off  # noqa: F401  (autouse)
