"""The exact worst-case likelihood ratio of a compiled spec, from its weights.

The respondent's device computes ``R = max_y max_{x,x'} W[x,y]/W[x',y]``
from the integer weights it samples with, before it randomizes anything, and
shows ``ε = ln R`` rounded up.  This is the Python side of that computation:
it reads only the spec's weights (never ``ldp.build``, so it also works on
tampered specs) and gives the figures the shared vectors expect.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.exact import display_epsilon, log_ratio
from ldp.spec import families


def pair_ratio(a: int, b: int) -> Fraction:
    """``max(a, b)/min(a, b)``: the ratio of two positive weights, at least 1."""
    return Fraction(max(a, b), min(a, b))


def matrix_ratio(rows: np.ndarray) -> Fraction:
    """``max_y max_x W[x, y]/min_x W[x, y]`` of an integer channel ``W``."""
    high, low = rows.max(axis=0), rows.min(axis=0)
    return max(Fraction(int(h), int(lo)) for h, lo in zip(high, low, strict=True))


def likelihood_ratio(spec: dict[str, Any]) -> Fraction:
    """The exact worst-case likelihood ratio of a compiled spec.

    Parameters
    ----------
    spec : dict
        A compiled spec (with ``weights``); it is not validated here.

    Returns
    -------
    Fraction
        ``R = max over reports y and answers x, x' of P(y|x)/P(y|x')``.

    Notes
    -----
    ``ε = ln R`` (docs/maths.md, section 1).  Each family reads it from its
    weights (``weights_ratio`` in its module): a ratio of two weights (Warner,
    GRR, OLH, Hadamard, padding-and-sampling with its
    ``(P + (ℓ−1)Q)/(ℓQ)``); the worst factor of two bits for unary
    encodings; the worst bit factor to the power k for per-option randomized
    response; column max/min of the explicit channel for ordinal and grid
    mechanisms.

    References
    ----------
    .. [1] P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local
       differential privacy", JMLR 17, 2016.
    """
    mechanism = spec.get("mechanism")
    try:
        rules = families.rules(mechanism)
    except ValueError:
        raise ValueError(f"no likelihood ratio for mechanism {mechanism!r}") from None
    return rules.weights_ratio(spec)


def ratio_epsilon(ratio: Fraction) -> Decimal:
    """``ln R`` to 60 significant digits.

    Parameters
    ----------
    ratio : Fraction
        A likelihood ratio ``R ≥ 1``.

    Returns
    -------
    Decimal
        ``ln R``.

    Notes
    -----
    Only the logarithm is rounded (docs/maths.md, section 1).

    References
    ----------
    .. [1] S. L. Warner, "Randomized response", JASA 60(309), 1965.
    """
    if ratio == 1:
        return Decimal(0)
    return log_ratio(ratio.numerator, ratio.denominator)


def ratio_display(ratio: Fraction) -> str:
    """``ln R`` rounded up to 3 decimals, as the device and the pages show it.

    Parameters
    ----------
    ratio : Fraction
        A likelihood ratio ``R ≥ 1``.

    Returns
    -------
    str
        ``⌈1000 ln R⌉ / 1000``, e.g. ``"1.099"`` for ``R = 3``.

    Notes
    -----
    Equal to ``display_epsilon`` of the mechanism's exact ε.

    References
    ----------
    .. [1] docs/maths.md, section 1.
    """
    return display_epsilon(ratio_epsilon(ratio))
