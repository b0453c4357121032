"""The settings the test suite runs with: the project's own, plus test-only values.

pytest loads this module (``DJANGO_SETTINGS_MODULE`` in pyproject.toml).  The
servers the tests start (``tests.conftest.clean_env``) run the project's
``surveys.settings`` itself, told what they need through the environment.
"""

from surveys.settings import *  # noqa: F403
from surveys.settings import ALLOWED_HOSTS

# The host name of Django's test client.
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]
# Results snapshots advance with every new submission, unless a test sets its
# own batch size (servers the tests start get the same through the environment).
SNAPSHOT_MIN_NEW_SUBMISSIONS = 1
