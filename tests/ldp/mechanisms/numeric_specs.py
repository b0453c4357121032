"""Small specs for the ordinal and numeric-grid mechanisms (shared by tests)."""

from __future__ import annotations

from typing import Any

FINITE_SPECS: dict[str, dict[str, Any]] = {
    "ordinal": {"mechanism": "ordinal", "k": 5, "epsilon": 1.0},
    "geometric": {
        "mechanism": "geometric",
        "low": "0",
        "high": "10",
        "step": "1",
        "epsilon": 2.0,
    },
    "gaussian": {
        "mechanism": "gaussian",
        "low": "0",
        "high": "1",
        "step": "0.25",
        "epsilon": 3.0,
    },
    "duchi": {
        "mechanism": "duchi",
        "low": "0",
        "high": "100",
        "step": "5",
        "epsilon": 1.0,
    },
    "piecewise": {
        "mechanism": "piecewise",
        "low": "-1",
        "high": "1",
        "step": "0.5",
        "epsilon": 2.0,
    },
}


def grid(name: str, low: str, high: str, step: str, epsilon: float) -> dict:
    """A numeric spec."""
    return {
        "mechanism": name,
        "low": low,
        "high": high,
        "step": step,
        "epsilon": epsilon,
    }
