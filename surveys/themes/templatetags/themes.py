"""``{% theme_head survey %}`` and ``{% theme_brand survey %}`` on respondent pages.

The first links the theme's stylesheet (in the page's head), the second shows
its logo and name in the header.  Nothing of the theme reaches the device's
scripts, which stay the same hashed files on every page.
"""

from __future__ import annotations

from typing import Any

from django import template

from surveys.themes.models import Theme, theme_for

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
    return {"theme": _theme(survey)}


@register.inclusion_tag("themes/brand.html")
def theme_brand(survey: Any) -> dict[str, Any]:
    return {"theme": _theme(survey)}
