"""CSV cells that are safe to open: formulas neutralised, lines streamed lazily."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any

# Rows read from the database per round trip by streamed exports.
CHUNK_SIZE = 2000
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """A text cell a spreadsheet would evaluate gets a leading quote; numbers
    (written as numbers, never as text) are left alone."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


class _Echo:
    """A file-like object whose write returns what it was given (for streaming)."""

    def write(self, value: str) -> str:
        return value


def csv_lines(header: list[str], rows: Iterable[Iterable[Any]]) -> Iterator[str]:
    """Lines of a CSV document, each cell neutralised (:func:`neutralise`,
    written inline: a call per cell was most of a long export's time); lazy."""
    writer = csv.writer(_Echo())
    write = writer.writerow
    prefixes = FORMULA_PREFIXES
    yield write(header)
    for row in rows:
        yield write(
            [
                "'" + cell
                if isinstance(cell, str) and cell.startswith(prefixes)
                else cell
                for cell in row
            ]
        )


# ``json.dumps`` with these options builds an encoder per call; one is kept.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def compact_json(value: Any) -> str:
    """JSON without spaces, non-ASCII kept: one cell or one line of a stream
    (what ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``
    writes)."""
    return _COMPACT(value)
