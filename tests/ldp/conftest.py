"""Shared fixtures for the ldp tests: one small spec per mechanism."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ldp

COIN = {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}

SPECS: dict[str, dict[str, Any]] = {
    "forced_response": {"mechanism": "forced_response", "design": COIN},
    "warner": {"mechanism": "warner", "epsilon": 1.0},
    "grr": {"mechanism": "grr", "k": 5, "epsilon": 1.0},
    "sue": {"mechanism": "sue", "k": 3, "epsilon": 1.0},
    "oue": {"mechanism": "oue", "k": 3, "epsilon": 1.0},
    "olh": {"mechanism": "olh", "k": 5, "epsilon": 1.0},
    "hadamard": {"mechanism": "hadamard", "k": 5, "epsilon": 1.0},
}


def supports(spec: dict[str, Any], report: Any, v: int) -> bool:
    """Independent, naive definition of "report supports answer v"."""
    w = spec["weights"]
    name = spec["mechanism"]
    if name in ("forced_response", "warner", "grr"):
        return report == v
    if name in ("sue", "oue"):
        return report[v] == 1
    if name == "olh":
        a, b, y = report
        return ((a * v + b) % w["prime"]) % w["g"] == y
    if name == "hadamard":
        j, bit = report
        return bit == (1 if bin(j & v).count("1") % 2 == 0 else 0)
    raise AssertionError(name)


@pytest.fixture(params=sorted(SPECS))
def mechanism(request: pytest.FixtureRequest) -> ldp.Mechanism:
    """Every mechanism family, built from a small spec."""
    return ldp.build(SPECS[request.param])


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator (every test gets the same stream)."""
    return np.random.default_rng(20261122)
