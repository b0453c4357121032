"""Privacy in plain language for respondents."""

from __future__ import annotations

import math
from decimal import Decimal

from ldp.accounting.channels import float_up

STRONG_MAX = 1.0
"""ε up to which protection is called strong (50% prior → at most 73.2%)."""

MODERATE_MAX = 3.0
"""ε up to which protection is called moderate (50% prior → at most 95.3%)."""

_HUGE_FACTOR = 1_000_000
_SUBJECT = "Someone who sees your report"


def _check(epsilon: float | Decimal) -> float:
    value = float_up(epsilon) if isinstance(epsilon, Decimal) else float(epsilon)
    if not value >= 0:
        raise ValueError(f"ε must be >= 0 (inf allowed), got {epsilon!r}")
    return value


def _factor_text(epsilon: float) -> str:
    """``e^ε`` to sensible precision, with "about" when rounding changed it."""
    if epsilon > math.log(_HUGE_FACTOR):
        return f"more than {_HUGE_FACTOR:,}"
    factor = math.exp(epsilon)
    if abs(factor - round(factor)) <= 1e-9 * factor:
        return f"{round(factor):,}"
    if factor < 10:
        excess = factor - 1
        digits = 2 if excess >= 0.01 else math.ceil(-math.log10(excess)) + 1
        text = f"{factor:.{digits}f}".rstrip("0").rstrip(".")
    elif factor < 100:
        text = f"{factor:.1f}"
    else:
        text = f"{round(factor):,}"
    shown = float(text.replace(",", ""))
    return text if abs(shown - factor) <= 1e-9 * factor else f"about {text}"


def _percent_up(value: float, digits: int) -> str:
    """``value`` rounded up to ``digits`` decimals (float noise below 1e-7 of a
    displayed unit is ignored, so 75.00000000000001 shows as 75)."""
    scale = 10**digits
    return f"{math.ceil(value * scale - 1e-7) / scale:.{digits}f}"


def describe_epsilon(epsilon: float | Decimal, prior: float = 0.5) -> str:
    """Return one sentence telling a respondent what ε means for them.

    Parameters
    ----------
    epsilon : float or Decimal
        ε >= 0 of the report (``inf`` allowed).
    prior : float, default 0.5
        An observer's prior belief ``p`` in (0, 1) that the answer is a given
        one.

    Returns
    -------
    str
        For ε = ln 3: "Someone who sees your report can at most multiply their
        odds on your true answer by 3: from 50% to at most 75%."

    Notes
    -----
    ε-LDP bounds the posterior odds by ``e^ε`` times the prior odds, so the
    posterior is at most ``e^ε p / (1 − p + e^ε p)``.  The factor ``e^ε`` is
    shown with 2 decimals below 10 (more when ε < 0.01, so it never reads
    "1.00"), 1 decimal below 100 and as a whole number above, prefixed by
    "about" when rounded; above a million it reads "more than 1,000,000".
    The posterior is always rounded *up* (float noise below 1e-7 of the last
    shown digit aside, so ln 3 reads 75%, not 76%): whole percents, one
    decimal when it is within one point of the prior or at least 99%, and
    "more than 99.9%" beyond that.  ε = 0 and ε = ∞ get their own sentences.

    References
    ----------
    .. [1] docs/maths.md, section 8 (in words for respondents).
    .. [2] C. Dwork and A. Roth (2014), section 2.3.
    """
    value = _check(epsilon)
    if not 0 < prior < 1:
        raise ValueError(f"prior must lie in (0, 1), got {prior!r}")
    if math.isinf(value):
        return f"{_SUBJECT} can learn your true answer."
    if value == 0:
        return f"{_SUBJECT} learns nothing about your true answer."
    posterior = 100 / (1 + (1 - prior) / prior * math.exp(-value))
    start = 100 * prior
    if posterior > 99.9:
        end = "more than 99.9%"
    else:
        digits = 1 if posterior >= 99 or posterior - start < 1 else 0
        end = f"at most {_percent_up(posterior, digits)}%"
    return (
        f"{_SUBJECT} can at most multiply their odds on your true answer by "
        f"{_factor_text(value)}: from {start:.3g}% to {end}."
    )


def describe_epsilon_short(epsilon: float | Decimal) -> str:
    """Return a short label for ε.

    Parameters
    ----------
    epsilon : float or Decimal
        ε >= 0 (``inf`` allowed).

    Returns
    -------
    str
        "strong protection" for ε <= 1, "moderate protection" for ε <= 3,
        "weak protection" for finite ε > 3, "no protection" for ε = ∞.

    Notes
    -----
    The thresholds follow the posterior from a 50% prior,
    ``e^ε / (1 + e^ε)``: at most 73.2% at ε = 1 and 95.3% at ε = 3.

    References
    ----------
    .. [1] docs/maths.md, section 8.
    """
    value = _check(epsilon)
    if value <= STRONG_MAX:
        return "strong protection"
    if value <= MODERATE_MAX:
        return "moderate protection"
    if math.isinf(value):
        return "no protection"
    return "weak protection"
