"""The scripts a respondent's browser runs, and their integrity hashes.

The randomizer (the respondent's agent, which checks every spec before it
randomizes), the wording module (every sentence about protection, made on the
device, in every language it knows), the outbox (the body the device sends,
built from its own state through an allowlist), the section checks (what a
section still needs before "Next" or "Send") and the page script that calls
them (``respond.js`` and its parts, ``respond_<part>.js``, one job each); and
that script's catalog of UI strings (nothing about protection) for the page's
language.  The hash is computed from the bytes actually served, so the
``integrity`` attributes on the pages, the verify page and the files themselves
cannot disagree.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

import ldp
from surveys.collection import js_catalogs

RANDOMIZER_PATH = Path(ldp.__file__).resolve().parent / "js" / "randomizer.js"
WORDING_PATH = Path(ldp.__file__).resolve().parent / "js" / "wording.js"
RESPOND_STATIC_PATH = "js/respond.js"
# The page script's parts (``js/respond_<part>.js``), in the order it installs
# them; each page links every one with its hash (``respond_parts``).
RESPOND_PARTS = (
    "page",
    "note",
    "contents",
    "answers",
    "numbers",
    "sections",
    "plan",
    "save",
    "send",
)
OUTBOX_STATIC_PATH = "js/outbox.js"
LEDGER_STATIC_PATH = "js/ledger.js"
ORDER_STATIC_PATH = "js/order.js"
QUOTAS_STATIC_PATH = "js/quotas.js"
PIPING_STATIC_PATH = "js/piping.js"
SECTION_CHECKS_STATIC_PATH = "js/section_checks.js"
VERIFY_STATIC_PATH = "js/verify.js"
# The release record (scripts/release-record writes it), at the project root.
RELEASES_PATH = Path(__file__).resolve().parents[2] / "RELEASES.md"
# The independent device's own files (``manage.py build_device`` adds the
# randomizer, the wording module and the outbox to them).
DEVICE_DIR = Path(__file__).resolve().parents[2] / "device"
INDEPENDENT_FILES = ("index.html", "app.js", "questions.js", "style.css")
_HEADING = re.compile(r"^## (\S+)$", re.MULTILINE)
_ROW = re.compile(r"^\| `([^`]+)` \| `(sha384-[A-Za-z0-9+/=]+)` \|$", re.MULTILINE)


@dataclass(frozen=True)
class Script:
    """A served script: its source bytes and Subresource Integrity value."""

    name: str
    source: bytes

    @property
    def integrity(self) -> str:
        digest = hashlib.sha384(self.source).digest()
        return "sha384-" + base64.b64encode(digest).decode("ascii")

    @property
    def text(self) -> str:
        return self.source.decode("utf-8")


def randomizer_script() -> Script:
    """The browser randomizer exactly as ``collection:randomizer`` serves it."""
    return Script("randomizer.js", RANDOMIZER_PATH.read_bytes())


def wording_script() -> Script:
    """The respondent wording module exactly as ``collection:wording`` serves it."""
    return Script("wording.js", WORDING_PATH.read_bytes())


def device_scripts() -> list[Script]:
    """Every script a respondent page runs, in the order the verify page lists."""
    return [
        randomizer_script(),
        wording_script(),
        outbox_script(),
        ledger_script(),
        order_script(),
        quotas_script(),
        piping_script(),
        section_checks_script(),
        *respond_part_scripts(),
        respond_script(),
    ]


def independent_device() -> list[Script]:
    """The independent device's own files (``device/``), in bundle order."""
    return [
        Script(name, (DEVICE_DIR / name).read_bytes()) for name in INDEPENDENT_FILES
    ]


def independent_bundle() -> list[Script]:
    """Every file of the independent device's bundle: its own files and the
    device modules it imports (the randomizer, the wording, the outbox and the
    memory), byte for byte as the survey pages serve them."""
    return [
        *independent_device(),
        randomizer_script(),
        wording_script(),
        outbox_script(),
        ledger_script(),
    ]


def respond_script() -> Script:
    """``static/js/respond.js`` as the static files app serves it."""
    return Script("respond.js", served_static(RESPOND_STATIC_PATH))


def respond_part_scripts() -> list[Script]:
    """The page script's parts (``static/js/respond_<part>.js``) as served,
    in the order it installs them."""
    return [
        Script(f"respond_{part}.js", served_static(f"js/respond_{part}.js"))
        for part in RESPOND_PARTS
    ]


def respond_parts() -> list[dict[str, str]]:
    """What a page needs to link each part: its name (``data-respond-part``),
    static path and Subresource Integrity hash."""
    return [
        {"part": part, "path": f"js/{script.name}", "integrity": script.integrity}
        for part, script in zip(RESPOND_PARTS, respond_part_scripts(), strict=True)
    ]


def outbox_script() -> Script:
    """``static/js/outbox.js`` (the body the device sends, from an allowlist)."""
    return Script("outbox.js", served_static(OUTBOX_STATIC_PATH))


def ledger_script() -> Script:
    """``static/js/ledger.js`` (the device's memory of what it gave this site)."""
    return Script("ledger.js", served_static(LEDGER_STATIC_PATH))


def order_script() -> Script:
    """``static/js/order.js`` (the device's own random order, never sent)."""
    return Script("order.js", served_static(ORDER_STATIC_PATH))


def quotas_script() -> Script:
    """``static/js/quotas.js`` (the quota check before anything is randomized)."""
    return Script("quotas.js", served_static(QUOTAS_STATIC_PATH))


def piping_script() -> Script:
    """``static/js/piping.js`` (earlier unprotected answers in later text)."""
    return Script("piping.js", served_static(PIPING_STATIC_PATH))


def flow_scripts() -> dict[str, Script]:
    """The answer page's order, quota and piping modules, as its template
    names them."""
    return {
        "order_js": order_script(),
        "quotas_js": quotas_script(),
        "piping_js": piping_script(),
    }


def section_checks_script() -> Script:
    """``static/js/section_checks.js`` (what a section still needs, in the
    server's words; which sections have anything to show)."""
    return Script("section_checks.js", served_static(SECTION_CHECKS_STATIC_PATH))


def verify_script() -> Script:
    """``static/js/verify.js``: the verify page's reading of what it ran with."""
    return Script("verify.js", served_static(VERIFY_STATIC_PATH))


def recorded_fingerprints(version: str) -> dict[str, str]:
    """The release record's entry for ``version``: repository path → SHA-384
    (empty when the record has none, or is not installed)."""
    try:
        text = RELEASES_PATH.read_text(encoding="utf-8")
    except OSError:
        return {}
    headings = list(_HEADING.finditer(text))
    for index, heading in enumerate(headings):
        if heading.group(1) != version:
            continue
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        return dict(_ROW.findall(text[heading.end() : end]))
    return {}


def js_catalog(language: str) -> Script | None:
    """``language``'s djangojs catalog as served (None: the language has none)."""
    if language not in js_catalogs.translated_languages():
        return None
    try:
        source = served_static(js_catalogs.catalog_path(language))
    except FileNotFoundError:
        return None
    return Script(f"{language}.json", source)


def served_static(path: str) -> bytes:
    """The bytes the static files app serves for ``path`` (``js/respond.js``)."""
    try:
        # Hashed-name storages serve a renamed copy; hash that copy.
        stored_name = getattr(staticfiles_storage, "stored_name", None)
        name = stored_name(path) if stored_name else path
        with staticfiles_storage.open(name) as handle:
            return handle.read()
    except (FileNotFoundError, OSError, ValueError):
        # Development and tests: no collectstatic, served from the finders.
        found = finders.find(path)
        if not found:
            raise FileNotFoundError(path) from None
        return Path(found).read_bytes()
