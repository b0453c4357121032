"""``{% theme_head survey %}`` and ``{% theme_brand survey %}`` on respondent pages.

The first links the theme's stylesheet (in the page's head), and the survey's
own accent colour after it when its researchers chose one; the second shows
its logo and name in the header.  Nothing of the theme reaches the device's
scripts, which stay the same hashed files on every page.
"""

from __future__ import annotations

from typing import Any

from django import template

from surveys.themes.models import Theme, accent_stylesheet_url, theme_for

register = template.Library()

_CACHE = "_shown_theme"


def _theme(survey: Any) -> Theme | None:
    """The survey's theme, looked up once per survey object."""
    if survey is None:
        return None
    if not hasattr(survey, _CACHE):
        setattr(survey, _CACHE, theme_for(getattr(survey, "theme_id", None)))
    return getattr(survey, _CACHE)


@register.inclusion_tag("themes/head.html")
def theme_head(survey: Any) -> dict[str, Any]:
    """The theme's stylesheet, then the survey's own accent colour (if any),
    which comes later and so wins (a validated value, see themes.views)."""
    accent = getattr(survey, "theme_accent", "") if survey is not None else ""
    return {"theme": _theme(survey), "accent_url": accent_stylesheet_url(accent)}


@register.inclusion_tag("themes/brand.html")
def theme_brand(survey: Any) -> dict[str, Any]:
    return {"theme": _theme(survey)}
