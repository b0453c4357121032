"""A theme's stylesheet and logo, served from this site's own origin.

The Content Security Policy forbids inline styles, so the accent colour comes
as a tiny stylesheet.  Both URLs carry the theme's version, so browsers may
keep them for a year: a changed theme has a new URL.  A stale version still
gets the current content, but is not cached.

A survey's own accent colour (chosen by its researchers) comes from a URL that
names the colour itself: the view serves it only if it passes the same checks
as a stored one (#rrggbb, WCAG AA contrast), so nothing but a validated colour
ever reaches a respondent's stylesheet, and the content never changes.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_safe

from surveys.themes.models import Theme, accent_stylesheet_text, validate_accent

YEAR = 365 * 24 * 3600


def _cached(response: HttpResponse, theme: Theme, version: str) -> HttpResponse:
    if version == theme.version:
        patch_cache_control(response, public=True, max_age=YEAR, immutable=True)
    else:
        patch_cache_control(response, no_cache=True)
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_safe
def stylesheet(request: HttpRequest, pk: int, version: str) -> HttpResponse:
    theme = get_object_or_404(Theme.objects.defer("logo"), pk=pk)
    response = HttpResponse(theme.stylesheet, content_type="text/css; charset=utf-8")
    return _cached(response, theme, version)


@require_safe
def logo(request: HttpRequest, pk: int, version: str) -> HttpResponse:
    theme = get_object_or_404(Theme, pk=pk)
    if not theme.logo_type:
        raise Http404("This theme has no logo.")
    response = HttpResponse(bytes(theme.logo), content_type=theme.logo_type)
    return _cached(response, theme, version)


@require_safe
def accent_stylesheet(request: HttpRequest, hex_digits: str) -> HttpResponse:
    colour = f"#{hex_digits}"
    if colour != colour.lower():
        raise Http404("Colours are named in lower case.")
    try:
        validate_accent(colour)
    except ValidationError as error:
        raise Http404("Not an accepted accent colour.") from error
    response = HttpResponse(
        accent_stylesheet_text(colour), content_type="text/css; charset=utf-8"
    )
    patch_cache_control(response, public=True, max_age=YEAR, immutable=True)
    response["X-Content-Type-Options"] = "nosniff"
    return response
