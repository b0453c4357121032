"""Contrast between two sRGB colours, as WCAG 2.2 defines it.

Relative luminance (WCAG 2.2, "relative luminance",
https://www.w3.org/TR/WCAG22/#dfn-relative-luminance): each 8-bit channel
``C8`` becomes ``c = C8 / 255`` and is linearised as

    c / 12.92                    if c <= 0.04045
    ((c + 0.055) / 1.055) ** 2.4 otherwise

(the sRGB transfer function; WCAG's text once printed 0.03928, which gives the
same result for every 8-bit value), and ``L = 0.2126 R + 0.7152 G + 0.0722 B``.

Contrast ratio (WCAG 2.2, "contrast ratio",
https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio): ``(L1 + 0.05) / (L2 + 0.05)``
with ``L1`` the lighter colour's luminance, from 1 (no contrast) to 21 (black
on white).  Success criterion 1.4.3 (Contrast, minimum, level AA) asks for at
least 4.5 for normal-size text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

AA_NORMAL_TEXT = 4.5
HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


def channels(colour: str) -> tuple[int, int, int]:
    """The 8-bit red, green and blue of a ``#rrggbb`` colour."""
    if not HEX_COLOUR.match(colour):
        raise ValueError(f"not a #rrggbb colour: {colour!r}")
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: str) -> float:
    """WCAG 2.2 relative luminance of ``#rrggbb``: 0 for black, 1 for white."""
    red, green, blue = (_linear(c) for c in channels(colour))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


@dataclass(frozen=True)
class ContrastResult:
    """The contrast of ``foreground`` on ``background`` against a minimum.

    Attributes
    ----------
    foreground, background : str
        The two ``#rrggbb`` colours.
    ratio : float
        The WCAG contrast ratio, 1 to 21.
    minimum : float
        The ratio asked for (4.5: AA for normal text).
    """

    foreground: str
    background: str
    ratio: float
    minimum: float

    @property
    def passes(self) -> bool:
        """True when the ratio reaches the minimum."""
        return self.ratio >= self.minimum


def contrast(
    foreground: str, background: str, minimum: float = AA_NORMAL_TEXT
) -> ContrastResult:
    """The WCAG 2.2 contrast ratio of two colours (order does not matter)."""
    lighter, darker = sorted(
        (relative_luminance(foreground), relative_luminance(background)),
        reverse=True,
    )
    ratio = (lighter + 0.05) / (darker + 0.05)
    return ContrastResult(foreground, background, ratio, minimum)
