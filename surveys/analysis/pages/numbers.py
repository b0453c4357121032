"""Numbers as researchers' pages show them: in the reader's language, grouped,
as percentages or percentage points, rounded to what they can claim.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from django.utils.formats import get_format, number_format
from django.utils.translation import gettext, pgettext


def localized(text: str) -> str:
    """A number written in the C locale ("12.3") the active language's way
    ("12,3" in Spanish and French); for display only, never for a file or a
    script (those keep the C locale)."""
    return text.replace(".", str(get_format("DECIMAL_SEPARATOR")))


def grouped(value: int) -> str:
    """A count with the active language's thousands separator ("4,812")."""
    return number_format(value, force_grouping=True)


def percent(value: float | None, digits: int = 1) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return pgettext("a percentage", "%(value)s%%") % {
        "value": localized(f"{value * 100:.{digits}f}")
    }


def points(value: float | None, digits: int = 1) -> str:
    """A difference of shares, in percentage points ("8.8 percentage points").

    Shares are percentages; a margin, a target or a shift of a share is a
    difference of percentages, which is never written with "%" here (±8.8%
    could be read as 8.8% *of* the share).
    """
    if value is None or not math.isfinite(value):
        return "—"
    return gettext("%(value)s percentage points") % {
        "value": localized(f"{value * 100:.{digits}f}")
    }


def number(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return localized(
        f"{value:.{digits}g}" if abs(value) >= 1000 else f"{value:.{digits}f}"
    )


def _percent_text(value: Decimal, digits: int) -> str:
    return pgettext("a percentage", "%(value)s%%") % {
        "value": localized(f"{value:.{digits}f}")
    }


def share_interval(
    low: float | None, high: float | None, digits: int = 1
) -> tuple[str, str]:
    """A share's interval as a page shows it: within 0–100%, never a point.

    Each end is cut to [0, 1] (no share lies outside), then rounded outwards
    to the ``digits`` shown (the low end down, the high end up), so what is
    shown covers at least what was computed.  If both ends still read the
    same, the interval is widened by one unit of the last digit shown, away
    from the end of the range it touches: an interval of positive width
    rounded to a point would claim a precision no estimate from randomized
    reports has (docs/maths.md, section 6.8).
    """
    unit = Decimal(1).scaleb(-digits)
    top = Decimal(100)

    def end(value: float | None, rounding: str) -> Decimal | None:
        if value is None or not math.isfinite(value):
            return None
        cut = min(max(Decimal(repr(value)) * 100, Decimal(0)), top)
        return cut.quantize(unit, rounding=rounding)

    shown_low, shown_high = end(low, ROUND_FLOOR), end(high, ROUND_CEILING)
    if shown_low is None or shown_high is None:  # an end not computed: "—"
        return tuple(  # type: ignore[return-value]
            "—" if shown is None else _percent_text(shown, digits)
            for shown in (shown_low, shown_high)
        )
    if shown_high <= shown_low:
        if shown_low + unit <= top:
            shown_high = shown_low + unit
        else:
            shown_low = shown_high - unit
    return _percent_text(shown_low, digits), _percent_text(shown_high, digits)


def share_cut(value: float | None, digits: int = 1) -> tuple[str, bool]:
    """A share cut to 0–100% as a page shows it, and whether it was cut (an
    unbiased estimate from few reports can lie beyond either end)."""
    if value is None or not math.isfinite(value):
        return "—", False
    cut = min(max(value, 0.0), 1.0)
    return percent(cut, digits), cut != value
