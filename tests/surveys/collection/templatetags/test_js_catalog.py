"""``{% js_catalog_link %}`` links the active language's catalog with its hash."""

from __future__ import annotations

import re

from django.template import Context, Template
from django.utils import translation

from surveys.collection import assets, js_catalogs

TAG = Template("{% load js_catalog %}{% js_catalog_link %}")


def rendered(language: str) -> str:
    with translation.override(language):
        return TAG.render(Context())


def test_a_translated_language_gets_its_catalog_with_the_served_files_hash():
    for language in js_catalogs.translated_languages():
        link = rendered(language)
        served = assets.served_static(js_catalogs.catalog_path(language))
        assert f'href="/static/js/i18n/{language}.json"' in link
        assert f'integrity="{assets.Script("x", served).integrity}"' in link
        assert re.search(r"\bdata-js-catalog\b", link)


def test_english_needs_no_catalog():
    assert rendered("en") == ""


def test_a_language_without_a_catalog_links_nothing():
    assert rendered("de") == ""
    assert assets.js_catalog("de") is None
