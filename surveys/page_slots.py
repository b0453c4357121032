"""Pages rendered once with markers in place of their per-request parts.

A page that is the same for many requests but for a few small parts (a CSRF
token, a name, a time stamp) is rendered once with a random marker in place
of each part, cut at the markers (:func:`split`), and kept; each request joins
the pieces with its own values (:func:`fill`), escaped as the template would
escape them.  The answer page (``surveys.collection.respond_page``) and the
results dashboard (``surveys.analysis.dashboard_page``) are served this way.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Collection, Mapping

Pieces = tuple[tuple[str, ...], tuple[str, ...]]


def marker(name: str) -> str:
    """A marker no page text contains by accident (random per process)."""
    return f"{name}-{secrets.token_hex(16)}"


def split(
    html: str, slots: Collection[str], repeated: Collection[str] = ()
) -> Pieces | None:
    """The page cut at its markers: (pieces, slot after each piece but the
    last); None unless each marker occurs exactly once, or, for those in
    ``repeated``, at least once."""
    counts = {slot: html.count(slot) for slot in slots}
    if any(n < 1 or (n > 1 and slot not in repeated) for slot, n in counts.items()):
        return None
    cut = re.split("(" + "|".join(map(re.escape, slots)) + ")", html)
    return tuple(cut[0::2]), tuple(cut[1::2])


def fill(
    pieces: tuple[str, ...], order: tuple[str, ...], values: Mapping[str, str]
) -> str:
    """The page with each marker replaced by its value in ``values``."""
    parts = [pieces[0]]
    for slot, piece in zip(order, pieces[1:], strict=True):
        parts.append(values[slot])
        parts.append(piece)
    return "".join(parts)


class KeptPages:
    """Split pages kept in this process, the ``size`` most recently used
    (thread-safe), with counts of reuses (``hits``) and renders."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._pages: OrderedDict[str, Pieces] = OrderedDict()
        self._counts = {"hits": 0, "renders": 0}

    def get(self, key: str) -> Pieces | None:
        """The page kept under ``key`` (counted as a hit), or None."""
        with self._lock:
            found = self._pages.get(key)
            if found is not None:
                self._pages.move_to_end(key)
                self._counts["hits"] += 1
            return found

    def put(self, key: str, pieces: Pieces) -> None:
        """Keep a newly rendered page, forgetting the least recently used."""
        with self._lock:
            self._counts["renders"] += 1
            self._pages[key] = pieces
            self._pages.move_to_end(key)
            while len(self._pages) > self.size:
                self._pages.popitem(last=False)

    def info(self) -> dict[str, int]:
        """Pages reused (``hits``), rendered (``renders``) and kept (``size``)."""
        with self._lock:
            return {**self._counts, "size": len(self._pages)}

    def clear(self) -> None:
        """Forget every kept page and the counts."""
        with self._lock:
            self._pages.clear()
            self._counts["hits"] = self._counts["renders"] = 0
