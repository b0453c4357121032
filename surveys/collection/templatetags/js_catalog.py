"""``{% js_catalog_link %}``: the page language's djangojs catalog, with integrity."""

from __future__ import annotations

from django import template
from django.templatetags.static import static
from django.utils.translation import get_language

from surveys.collection import assets, js_catalogs

register = template.Library()


@register.inclusion_tag("collection/js_catalog_link.html")
def js_catalog_link() -> dict[str, str]:
    """A ``<link data-js-catalog>`` to the active language's JSON catalog.

    The page script fetches it same-origin with the ``integrity`` given here
    (``fetch(href, {integrity})``); the preload lets the browser start early.
    Empty for the default language, which needs no catalog.
    """
    script = assets.js_catalog(get_language() or "")
    if script is None:
        return {}
    return {
        "href": static(js_catalogs.catalog_path(script.name.removesuffix(".json"))),
        "integrity": script.integrity,
    }
