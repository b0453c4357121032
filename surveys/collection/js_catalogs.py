"""The ``djangojs`` catalogs: page scripts' UI strings, per language, as JSON.

The page scripts mark each visible string that says nothing about how answers
are protected with ``gettext("…")`` (a string literal, so it can be
extracted); every sentence about protection is worded by the hashed device
module ``ldp/js/wording.js`` instead, never by a catalog the server could
swap.  Translations live in ``locale/<lang>/LC_MESSAGES/djangojs.po``
(``manage.py makemessages -d djangojs``); ``manage.py makejscatalogs``
compiles them with GNU gettext's ``msgfmt`` (as ``compilemessages`` does) and
writes one static file per language, ``static/js/i18n/<lang>.json``:
``{"catalog": {msgid: translation}, "language": code}``.  Pages link it with
its Subresource Integrity hash (``{% js_catalog_link %}``); the script fetches
it same-origin and falls back to English without it.
"""

from __future__ import annotations

import gettext
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from django.conf import settings

# The page scripts whose strings are marked, relative to the static directory:
# the respondent pages' script and its parts (``js/respond_<part>.js``), the
# section checks and the question builder.
SCRIPT_PATTERNS = (
    "js/respond.js",
    "js/respond_*.js",
    "js/section_checks.js",
    "js/builder.js",
)
CATALOG_DIRECTORY = "js/i18n"
DOMAIN = "djangojs"
MARKED = re.compile(r'\bgettext\("((?:[^"\\\n]|\\.)*)"\)')
ANY_CALL = re.compile(r"\bgettext\(")
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


class CatalogError(Exception):
    """A catalog cannot be built (no ``msgfmt``, or a ``.po`` file it rejects)."""


def static_directory() -> Path:
    """The project's own static directory, where the scripts and catalogs are."""
    return Path(settings.STATICFILES_DIRS[0])


def script_source(name: str) -> str:
    """The text of one marked page script (``js/respond.js``)."""
    return (static_directory() / name).read_text(encoding="utf-8")


def scripts() -> list[str]:
    """Every marked page script, relative to the static directory."""
    root = static_directory()
    return [
        path.relative_to(root).as_posix()
        for pattern in SCRIPT_PATTERNS
        for path in sorted(root.glob(pattern))
    ]


def marked_strings() -> list[str]:
    """Every string the page scripts mark with ``gettext("…")``, sorted."""
    found: set[str] = set()
    for name in scripts():
        for raw in MARKED.findall(script_source(name)):
            found.add(json.loads(f'"{raw}"'))
    return sorted(found)


def unextractable_calls() -> list[str]:
    """``gettext(`` calls whose argument is not one string literal ("file:line")."""
    problems = []
    for name in scripts():
        for number, line in enumerate(script_source(name).splitlines(), start=1):
            calls = len(ANY_CALL.findall(line)) - len(MARKED.findall(line))
            if calls and not line.lstrip().startswith("function gettext("):
                problems.append(f"{name}:{number}")
    return problems


def translated_languages() -> list[str]:
    """The languages with a catalog: every one in LANGUAGES but the default."""
    return [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def po_path(language: str) -> Path:
    """Where the ``djangojs`` translations of ``language`` are kept."""
    return Path(settings.LOCALE_PATHS[0]) / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def catalog_path(language: str) -> str:
    """The static path of ``language``'s JSON catalog (``js/i18n/fr.json``)."""
    return f"{CATALOG_DIRECTORY}/{language}.json"


def compiled(language: str) -> gettext.NullTranslations:
    """``language``'s ``djangojs.po`` compiled by ``msgfmt --check-format``.

    Fuzzy entries are left out, as ``compilemessages`` leaves them out.  No
    ``.po`` file: no translations.
    """
    source = po_path(language)
    if not source.exists():
        return gettext.NullTranslations()
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        raise CatalogError(
            "msgfmt (GNU gettext) is needed to compile the djangojs catalogs; "
            "install gettext (e.g. apt-get install gettext)."
        )
    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory) / f"{DOMAIN}.mo"
        done = subprocess.run(  # noqa: S603 (a fixed program on our own file)
            [msgfmt, "--check-format", "-o", str(target), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise CatalogError(f"{source}: {done.stderr.strip()}")
        with target.open("rb") as handle:
            return gettext.GNUTranslations(handle)


def catalog(language: str) -> dict[str, str]:
    """{msgid: translation} for every marked string ``language`` translates.

    A translation whose ``%(name)s`` placeholders differ from its msgid's is
    refused (CatalogError): the page would show a raw or missing figure.
    """
    translations = compiled(language)
    found = {}
    for msgid in marked_strings():
        text = translations.gettext(msgid)
        if text == msgid:
            continue
        if placeholders(text) != placeholders(msgid):
            raise CatalogError(
                f"{po_path(language)}: {text!r} does not keep the placeholders "
                f"of {msgid!r}"
            )
        found[msgid] = text
    return found


def catalog_json(language: str) -> str:
    """The JSON file served for ``language``, exactly as it should be on disk."""
    document = {"catalog": catalog(language), "language": language}
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def stale_catalogs() -> list[str]:
    """The static catalog files that differ from what their ``.po`` compile to."""
    stale = []
    for language in translated_languages():
        path = static_directory() / catalog_path(language)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != catalog_json(language):
            stale.append(catalog_path(language))
    return stale


def write_catalogs() -> list[str]:
    """Write every language's catalog file; returns the static paths written."""
    written = []
    for language in translated_languages():
        path = static_directory() / catalog_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(catalog_json(language), encoding="utf-8")
        written.append(catalog_path(language))
    return written


def placeholders(text: str) -> list[str]:
    """The ``%(name)s`` placeholders of a string, sorted."""
    return sorted(PLACEHOLDER.findall(text))
