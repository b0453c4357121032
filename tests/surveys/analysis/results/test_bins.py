"""A question's binned distribution is computed once per tally and read from
the cache by every later snapshot with the same inputs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from django.core.cache import cache

import ldp
from surveys.analysis.results import bins

LABELS = ["1", "2", "3", "4", "5"]


@pytest.fixture
def scale():
    mechanism = ldp.build({"mechanism": "ordinal", "k": 5, "epsilon": 2.0})
    rng = np.random.default_rng(4)
    stat = mechanism.aggregate(mechanism.randomize(rng.integers(0, 5, 200), rng))
    return mechanism, stat


def _inputs(stat) -> dict:
    return {"labels": LABELS, "numeric": False, "cuts": None}


def test_a_distribution_with_the_same_inputs_is_read_from_the_cache(scale):
    mechanism, stat = scale
    first = bins.distribution(mechanism, stat, **_inputs(stat))
    assert first is not None
    key = bins._cache_key(mechanism, stat, LABELS, False, None)
    marked = replace(first, median=-1.0)  # what only the cache can return
    cache.set(key, marked)

    assert bins.distribution(mechanism, stat, **_inputs(stat)) == marked


@pytest.mark.parametrize(
    "change", ["counts", "cuts", "labels", "epsilon"], ids=lambda c: f"other {c}"
)
def test_any_changed_input_gives_another_cache_key(scale, change):
    mechanism, stat = scale
    key = bins._cache_key(mechanism, stat, LABELS, False, None)
    other_stat, other_mechanism, labels, cuts = stat, mechanism, LABELS, None
    if change == "counts":
        rng = np.random.default_rng(5)
        other_stat = mechanism.aggregate(mechanism.randomize(np.zeros(200, int), rng))
    elif change == "cuts":
        cuts = [2.0]
    elif change == "labels":
        labels = ["one", "two", "three", "four", "five"]
    else:
        other_mechanism = ldp.build({"mechanism": "ordinal", "k": 5, "epsilon": 1.0})
    other = bins._cache_key(other_mechanism, other_stat, labels, False, cuts)
    assert other != key


UNREACHABLE = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
        "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
    }
}


def test_a_cache_that_cannot_be_reached_only_costs_the_computation(scale, settings):
    mechanism, stat = scale
    expected = bins._computed(mechanism, stat, **_inputs(stat))
    settings.CACHES = UNREACHABLE
    with pytest.raises(Exception, match=r"(?i)connect"):
        cache.get("anything")  # the outage is real

    assert bins.distribution(mechanism, stat, **_inputs(stat)) == expected
