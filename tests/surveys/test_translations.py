"""The committed translation catalogs match the code (docs/translations.md).

``makemessages`` is run on a copy of the project, so the catalogs it would
write are compared with the committed ones without touching them: a string
marked in the code but missing from a catalog, or a catalog entry no longer in
the code, fails.  Spanish and French must translate every entry, none fuzzy;
Arabic is partial on purpose.  Each committed ``.mo`` must say exactly what
its ``.po`` says (a ``.po`` edited without ``compilemessages`` fails).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
COMPLETE = ("es", "fr")
PARTIAL = ("ar",)
LANGUAGES = COMPLETE + PARTIAL
# What makemessages reads (the django domain: Python and templates).
SOURCES = ("manage.py", "surveys", "templates", "ldp", "locale")

Key = tuple[object, str | None]


def catalog_path(root: Path, language: str, suffix: str = "po") -> Path:
    return root / "locale" / language / "LC_MESSAGES" / f"django.{suffix}"


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def plain(value: object) -> object:
    """A plural message's forms as a tuple (a .mo gives lists), else as is."""
    return tuple(value) if isinstance(value, list | tuple) else value


def entries(catalog: Catalog) -> dict[Key, object]:
    """Every message but the header, by (msgid, context), with its string."""
    return {(plain(m.id), m.context): plain(m.string) for m in catalog if m.id}


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    """A copy of the project on which makemessages has just run."""
    if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
        pytest.fail("GNU gettext is missing: run bash scripts/ensure-services")
    copy = tmp_path_factory.mktemp("project")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, copy / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(source, copy / name)
    command = [sys.executable, "manage.py", "makemessages", "--no-location"]
    command += ["--no-obsolete", "-d", "django"]
    for language in LANGUAGES:
        command += ["-l", language]
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "surveys.settings"}
    environment.pop("PYTHONPATH", None)
    subprocess.run(command, cwd=copy, env=environment, check=True, capture_output=True)
    return copy


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_marked_string_is_in_the_catalog_and_nothing_else(regenerated, language):
    committed = entries(read_catalog(catalog_path(ROOT, language)))
    current = entries(read_catalog(catalog_path(regenerated, language)))
    missing = sorted(map(str, current.keys() - committed.keys()))
    obsolete = sorted(map(str, committed.keys() - current.keys()))
    assert not missing, f"run makemessages; not in {language}: {missing}"
    assert not obsolete, f"run makemessages; no longer in the code: {obsolete}"


@pytest.mark.parametrize("language", COMPLETE)
def test_every_entry_is_translated_and_none_is_fuzzy(language):
    catalog = read_catalog(catalog_path(ROOT, language))
    assert not catalog.fuzzy, f"the {language} catalog's header is fuzzy"
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    empty = [
        m.id
        for m in catalog
        if m.id and not all(m.string if isinstance(m.string, tuple) else (m.string,))
    ]
    assert not fuzzy, f"fuzzy in {language}: {fuzzy}"
    assert not empty, f"untranslated in {language}: {empty}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_says_what_its_source_says(language):
    source = read_catalog(catalog_path(ROOT, language))
    with catalog_path(ROOT, language, "mo").open("rb") as file:
        compiled = read_mo(file)
    # msgfmt leaves out untranslated and fuzzy entries.
    translated = {
        (plain(m.id), m.context): plain(m.string)
        for m in source
        if m.id
        and not m.fuzzy
        and (all(m.string) if isinstance(m.string, tuple) else m.string)
    }
    assert entries(compiled) == translated, (
        f"locale/{language}/LC_MESSAGES/django.mo is stale: run compilemessages"
    )
    assert compiled.plural_forms == source.plural_forms


def test_the_plural_rules_are_each_languages_own():
    rules = {
        language: read_catalog(catalog_path(ROOT, language)).plural_forms
        for language in LANGUAGES
    }
    assert rules["es"] == "nplurals=2; plural=(n != 1);"
    assert rules["fr"] == "nplurals=2; plural=(n > 1);"  # 0 is singular in French
    assert rules["ar"].startswith("nplurals=6;")


def test_every_language_offered_has_a_catalog():
    offered = {code for code, _ in settings.LANGUAGES} - {settings.LANGUAGE_CODE}
    assert offered == set(LANGUAGES)
    for language in offered:
        assert catalog_path(ROOT, language, "mo").is_file(), language
