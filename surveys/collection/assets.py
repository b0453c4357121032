"""The two scripts a respondent's browser runs, and their integrity hashes.

The hash is computed from the bytes actually served, so the ``integrity``
attribute on the page, the verify page and the file itself cannot disagree.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

import ldp

RANDOMIZER_PATH = Path(ldp.__file__).resolve().parent / "js" / "randomizer.js"
RESPOND_STATIC_PATH = "js/respond.js"


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


def respond_script() -> Script:
    """``static/js/respond.js`` as the static files app serves it."""
    try:
        # Hashed-name storages serve a renamed copy; hash that copy.
        stored_name = getattr(staticfiles_storage, "stored_name", None)
        name = stored_name(RESPOND_STATIC_PATH) if stored_name else RESPOND_STATIC_PATH
        with staticfiles_storage.open(name) as handle:
            return Script("respond.js", handle.read())
    except (FileNotFoundError, OSError, ValueError):
        # Development and tests: no collectstatic, served from the finders.
        found = finders.find(RESPOND_STATIC_PATH)
        if not found:
            raise FileNotFoundError(RESPOND_STATIC_PATH) from None
        return Script("respond.js", Path(found).read_bytes())
