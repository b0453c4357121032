"""The device's plain strength label for a likelihood ratio, on the server.

The respondent's device labels each protected question, and the survey as a
whole, "Strong", "Moderate", "Weak" or "Very weak" protection from the exact
worst-case likelihood ratio ``R`` (``strength`` in ``ldp/js/wording.js``).
The builder warns a researcher before publishing a survey its respondents
would see labelled weak; to agree with the device, the limits are read out of
the shipped module (:mod:`ldp.spec.device`), never copied.  The words
themselves are the device's: the builder's page shows them with the device's
own module.

An observer who was 50/50 about an answer can afterwards be at most
``R/(1 + R)`` sure of it (Nanayakkara et al., "What Are the Chances?
Explaining the Epsilon Parameter in Differential Privacy", USENIX Security
2023, motivate the odds framing); the device's limits ``R ≤ 3, 9, 99`` are
75%, 90% and 99%.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from ldp.spec.device import shipped_limits
from ldp.spec.ratio import likelihood_ratio

STRENGTH_LIMITS: tuple[tuple[str, int], ...] = shipped_limits(
    "wording.js", "STRENGTH_LIMITS"
)
"""``(label key, largest ratio R)`` in the device's order; above the last: very weak."""

VERY_WEAK = "veryWeak"
"""The device's key for a ratio above every limit."""

WEAK = "weak"
"""The device's key of the first label the builder warns about."""


def strength(ratio: Fraction) -> str:
    """The device's label key for a likelihood ratio ``R``.

    Parameters
    ----------
    ratio : Fraction
        An exact likelihood ratio ``R ≥ 1``.

    Returns
    -------
    str
        The first key whose limit ``L`` has ``R ≤ L``, else :data:`VERY_WEAK`
        (the device's comparison ``n ≤ L·d`` on ``R = n/d``).
    """
    for key, limit in STRENGTH_LIMITS:
        if ratio <= limit:
            return key
    return VERY_WEAK


def weak_or_worse(ratio: Fraction) -> bool:
    """Whether the device would label ``R`` weak or very weak protection."""
    keys = [key for key, _ in STRENGTH_LIMITS] + [VERY_WEAK]
    return keys.index(strength(ratio)) >= keys.index(WEAK)


def warned_ratio() -> Fraction:
    """The largest ratio the device labels better than weak (the limit before
    :data:`WEAK`): a survey above it is labelled weak or worse."""
    keys = [key for key, _ in STRENGTH_LIMITS]
    return Fraction(STRENGTH_LIMITS[keys.index(WEAK) - 1][1])


def total_ratio(specs: Iterable[dict[str, Any]]) -> Fraction:
    """Sequential composition of compiled specs: the product of their exact
    worst-case likelihood ratios (``ε_total = Σ ε_i``; Dwork and Roth, "The
    algorithmic foundations of differential privacy", 2014, theorem 3.16)."""
    product = Fraction(1)
    for spec in specs:
        product *= likelihood_ratio(spec)
    return product
