"""The djangojs catalogs: every marked UI string translated, no catalog stale.

The page scripts' UI strings (nothing about protection; that is worded by the
hashed ``ldp/js/wording.js``) are translated in
``locale/<lang>/LC_MESSAGES/djangojs.po`` and served as static JSON files
compiled from them (``manage.py makejscatalogs``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from surveys.collection import js_catalogs

COMPLETE = ("es", "fr")
FIX = (
    "translate it in locale/{lang}/LC_MESSAGES/djangojs.po, "
    "then run manage.py makejscatalogs"
)


def test_the_page_script_marks_its_ui_strings():
    assert "Section %(current)s of %(total)s" in js_catalogs.marked_strings()


def test_every_gettext_call_takes_one_string_literal_so_it_can_be_extracted():
    assert js_catalogs.unextractable_calls() == []


@pytest.mark.parametrize("language", COMPLETE)
def test_every_marked_string_has_a_translation_with_the_same_placeholders(language):
    catalog = js_catalogs.catalog(language)
    for msgid in js_catalogs.marked_strings():
        fix = FIX.format(lang=language)
        assert msgid in catalog, f"{language} lacks {msgid!r}: {fix}"
        translated = catalog[msgid]
        assert translated.strip(), msgid
        assert js_catalogs.placeholders(translated) == js_catalogs.placeholders(msgid)


def test_arabic_is_partial_but_never_drops_a_placeholder():
    for msgid, translated in js_catalogs.catalog("ar").items():
        assert js_catalogs.placeholders(translated) == js_catalogs.placeholders(msgid)


def test_every_language_but_the_default_has_a_catalog():
    assert js_catalogs.translated_languages() == ["es", "fr", "ar"]


def test_the_static_catalogs_are_what_the_po_files_compile_to():
    stale = js_catalogs.stale_catalogs()
    assert stale == [], f"stale {stale}: run manage.py makejscatalogs"


def test_a_catalog_file_holds_only_the_translations_of_marked_strings():
    for language in js_catalogs.translated_languages():
        path = js_catalogs.static_directory() / js_catalogs.catalog_path(language)
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["language"] == language
        assert set(document["catalog"]) <= set(js_catalogs.marked_strings())


def test_a_changed_translation_makes_its_catalog_stale(settings, tmp_path):
    locale = tmp_path / "locale"
    shutil.copytree(Path(settings.LOCALE_PATHS[0]), locale)
    settings.LOCALE_PATHS = [locale]
    po = js_catalogs.po_path("fr")
    po.write_text(
        po.read_text(encoding="utf-8").replace(
            'msgstr "Section %(current)s sur %(total)s"',
            'msgstr "Partie %(current)s sur %(total)s"',
        ),
        encoding="utf-8",
    )
    assert js_catalogs.stale_catalogs() == ["js/i18n/fr.json"]
    with pytest.raises(CommandError, match=r"stale: js/i18n/fr\.json"):
        call_command("makejscatalogs", "--check")


def test_a_translation_that_drops_a_placeholder_is_refused(settings, tmp_path):
    locale = tmp_path / "locale"
    shutil.copytree(Path(settings.LOCALE_PATHS[0]), locale)
    settings.LOCALE_PATHS = [locale]
    po = js_catalogs.po_path("es")
    po.write_text(
        po.read_text(encoding="utf-8").replace(
            "Sección %(current)s de %(total)s", "Sección %(current)s"
        ),
        encoding="utf-8",
    )
    with pytest.raises(js_catalogs.CatalogError, match="placeholders"):
        js_catalogs.catalog("es")
    with pytest.raises(CommandError, match="placeholders"):
        call_command("makejscatalogs", "--check")


def test_makejscatalogs_check_passes_on_this_release(capsys):
    call_command("makejscatalogs", "--check")
    assert "up to date" in capsys.readouterr().out


def test_the_builder_marks_its_ui_strings():
    marked = js_catalogs.marked_strings()
    assert "Fix the settings to see a preview." in marked
    assert "Fix the planning figures: %(problems)s" in marked
