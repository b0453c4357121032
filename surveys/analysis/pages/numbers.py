"""Numbers as researchers' pages show them: in the reader's language, grouped,
as percentages or percentage points, rounded to what they can claim.
"""

from __future__ import annotations

import math

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
