"""Random binned-fit cases shared by the fit's Python and R tests."""

from __future__ import annotations

import numpy as np

import ldp
from ldp.estimators.level_channels import HistogramChannel, level_channel

# (mechanism, levels, ε, n, truth, seed) where the Newton steps converge:
# many levels at small ε included.
CASES = [
    ("piecewise", 201, 1.0, 500, "geometric", 1),
    ("piecewise", 201, 1.0, 1_000_000, "geometric", 2),
    ("piecewise", 201, 0.5, 500, "dirichlet", 2),
    ("piecewise", 101, 0.5, 2_000, "sparse", 3),
    ("geometric", 41, 1.0, 300, "sparse", 6),
    ("ordinal", 11, 0.5, 1_000, "dirichlet", 7),
]
FALLBACK_CASES = [
    ("geometric", 201, 0.5, 500, "dirichlet", 4),
]
"""Where they do not (a likelihood flat along many directions)."""


def fit_case(
    mechanism: str, k: int, epsilon: float, n: int, truth: str, seed: int
) -> tuple[HistogramChannel, np.ndarray, int]:
    """A merged channel, its report histogram and ``n``, from a seeded truth."""
    if mechanism == "ordinal":
        m = ldp.build({"mechanism": "ordinal", "k": k, "epsilon": epsilon})
    else:
        m = ldp.build(
            {
                "mechanism": mechanism,
                "low": 0,
                "high": k - 1,
                "step": 1,
                "epsilon": epsilon,
            }
        )
    rng = np.random.default_rng(seed)
    if truth == "geometric":
        answers = np.minimum(rng.geometric(5 / k, n), k - 1)
    elif truth == "sparse":
        answers = rng.choice(rng.choice(k, 3, replace=False), n)
    else:
        answers = rng.choice(k, n, p=rng.dirichlet(np.full(k, 0.3)))
    stat = m.aggregate(m.randomize(answers, rng))
    channel = level_channel(m)
    assert isinstance(channel, HistogramChannel)
    return channel, channel.sufficient(np.asarray(stat.counts, dtype=float)), stat.n
