"""The site's settings with the benchmark's baseline views (``baseline_site``)."""

from surveys.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.baseline_site"
