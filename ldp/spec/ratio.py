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


def _ratio(a: int, b: int) -> Fraction:
    return Fraction(max(a, b), min(a, b))


def _matrix_ratio(rows: np.ndarray) -> Fraction:
    high, low = rows.max(axis=0), rows.min(axis=0)
    return max(Fraction(int(h), int(lo)) for h, lo in zip(high, low, strict=True))


def clamped_channel(kernel: list[int], levels: int) -> np.ndarray:
    """The geometric/gaussian channel on ``levels`` grid points, ends clamped.

    Parameters
    ----------
    kernel : list of int
        ``2m − 1`` weights; index ``j`` is the offset ``j − (m − 1)``.
    levels : int
        The grid's ``m``.

    Returns
    -------
    ndarray of int64, shape (m, m)
        ``W[x, y]``: the kernel weight of offset ``y − x`` inside, and all the
        mass beyond an end on that end.

    Notes
    -----
    ``y = min(max(x + d, 0), m − 1)`` (ldp/spec/README.md).

    References
    ----------
    .. [1] A. Ghosh, T. Roughgarden, M. Sundararajan, "Universally
       utility-maximizing privacy mechanisms", STOC 2009.
    """
    m = levels
    k = np.asarray(kernel, dtype=np.int64)
    rows = np.zeros((m, m), dtype=np.int64)
    for x in range(m):
        y = np.clip(x + np.arange(2 * m - 1) - (m - 1), 0, m - 1)
        np.add.at(rows[x], y, k)
    return rows


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
    ``ε = ln R`` (docs/maths.md, section 1).  Per family: a ratio of two
    weights (Warner, GRR, OLH, Hadamard, padding-and-sampling with its
    ``(P + (ℓ−1)Q)/(ℓQ)``); the worst factor of two bits for unary
    encodings; the worst bit factor to the power k for per-option randomized
    response; column max/min of the explicit channel for ordinal and grid
    mechanisms.

    References
    ----------
    .. [1] P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local
       differential privacy", JMLR 17, 2016.
    """
    w = spec["weights"]
    mechanism = spec["mechanism"]
    k = spec.get("k", 2)
    if mechanism == "forced_response":
        t, a, b = w["truthful"], w["forced_yes"], w["forced_no"]
        return max(_ratio(t + a, a), _ratio(t + b, b))
    if mechanism in ("warner", "hadamard"):
        return _ratio(w["keep"], w["flip"])
    if mechanism in ("grr", "olh"):
        return _ratio(w["keep"], w["other"])
    if mechanism in ("sue", "oue", "multi_rr"):
        s, a1, a0 = w["total"], w["one_if_one"], w["one_if_zero"]
        if mechanism == "multi_rr":
            per_bit: Fraction = max(_ratio(a1, a0), _ratio(s - a1, s - a0))
            return Fraction(per_bit**k)
        up = max(Fraction(a1, a0), Fraction(s - a1, s - a0))
        down = max(Fraction(a0, a1), Fraction(s - a0, s - a1))
        return up * down
    if mechanism == "padding_sampling":
        ell = spec["ell"]
        return _ratio(w["keep"] + (ell - 1) * w["other"], ell * w["other"])
    if mechanism == "ordinal":
        return _matrix_ratio(np.asarray(w["rows"], dtype=np.int64))
    if mechanism in ("geometric", "gaussian"):
        levels = (len(w["kernel"]) + 1) // 2
        return _matrix_ratio(clamped_channel(w["kernel"], levels))
    if mechanism == "duchi":
        levels = (w["total"] - 2 * w["base"]) // w["slope"] + 1
        ones = w["base"] + w["slope"] * np.arange(levels, dtype=np.int64)
        return _matrix_ratio(np.stack([w["total"] - ones, ones], axis=1))
    if mechanism == "piecewise":
        cells = np.arange(w["outputs"])[None, :]
        starts = np.asarray(w["starts"])[:, None]
        band = (cells >= starts) & (cells < starts + w["width"])
        return _matrix_ratio(np.where(band, w["high"], w["low"]).astype(np.int64))
    raise ValueError(f"no likelihood ratio for mechanism {mechanism!r}")


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
