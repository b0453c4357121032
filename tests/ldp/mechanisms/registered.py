"""An example of every registered mechanism, and true answers and reports of it.

For the tests that cover the whole registry: each mechanism is built from its
own ``request`` for an answer domain of its first kind, so a mechanism added
to ``ldp.mechanisms.registry`` is covered by them without a change here.
"""

from __future__ import annotations

import random
from typing import Any

import ldp
from ldp.mechanisms.about import MULTI_SELECT, NUMERIC, YES_NO
from ldp.mechanisms.registry import MECHANISMS

GRID = {"low": "0", "high": "10", "step": "1"}
OPTIONS = 5
MAX_SELECTIONS = 2

FAMILIES = list(MECHANISMS)
IDS = [family.name for family in FAMILIES]


def answers_of(kind: str) -> dict[str, Any]:
    """A small answer domain of ``kind``: yes/no, five options, or a grid."""
    if kind == YES_NO:
        return {"k": 2}
    if kind == NUMERIC:
        return dict(GRID)
    return {"k": OPTIONS}


def example(family: type[ldp.Mechanism], epsilon: float = 1.0) -> ldp.Mechanism:
    """``family`` compiled for a small domain of its first kind."""
    spec = family.request(
        answers_of(family.kinds[0]), epsilon, max_selections=MAX_SELECTIONS
    )
    return ldp.build(spec)


def true_answer(mechanism: ldp.Mechanism, i: int, rng: random.Random) -> Any:
    """The ``i``-th made-up answer: an index, or a set of options (multi-select)."""
    if MULTI_SELECT in mechanism.kinds:
        most = getattr(mechanism, "max_selections", mechanism.k)
        return sorted(rng.sample(range(mechanism.k), i % (most + 1)))
    return i % mechanism.k


def report(mechanism: ldp.Mechanism, i: int, rng: random.Random) -> Any:
    """One JSON report of the ``i``-th answer, by the Python reference sampler."""
    return mechanism.randomize_one(
        true_answer(mechanism, i, rng), lambda: rng.getrandbits(32)
    )
