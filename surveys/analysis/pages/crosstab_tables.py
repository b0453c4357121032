"""The cross-tab and breakdown tables as the page shows them.

A finished job stores its numbers and the site's own answer labels ("Yes",
"No") in English, once for every reader (``jobs._crosstab_view``,
``jobs._breakdown_view``); these functions write them in the reader's
language: shares as percentages with the reader's decimal comma, yes/no
labels in the reader's words, a stratum's note translated.  Results stored
before the numbers were kept (preformatted text) are shown as stored.

No share is shown outside 0–100% and no interval as a point: an estimate
beyond either end is shown at that end and marked (``cut``), and intervals
are cut to the range and rounded outwards (``numbers.share_interval``).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from surveys.analysis.pages.dashboard import labels_shown
from surveys.analysis.pages.numbers import number, percent, share_cut, share_interval


def _percent(value: Any) -> str:
    return value if isinstance(value, str) else percent(value)


def _share(cell: dict[str, Any]) -> dict[str, Any]:
    """A cell's or row's estimate, interval and consistent estimate as shown."""
    estimate, low, high = cell["estimate"], cell["low"], cell["high"]
    if isinstance(estimate, str):  # stored preformatted by an older release
        shown, cut = estimate, False
    else:
        shown, cut = share_cut(estimate)
    if not isinstance(low, str) and not isinstance(high, str):
        low, high = share_interval(low, high)
    return {
        "estimate": shown,
        "cut": cut,
        "low": low,
        "high": high,
        "consistent": _percent(cell["consistent"]),
    }


def _number(value: Any) -> str:
    return value if isinstance(value, str) else number(value)


def _label(kind: str, label: str) -> str:
    return labels_shown(kind, [label])[0]


def crosstab_shown(result: dict[str, Any]) -> dict[str, Any]:
    """The page context of a finished cross-tab: ``crosstab`` (its counts,
    questions and column labels) and ``crosstab_rows`` (each row's cells)."""
    table = result["crosstab"]
    kind_a = table["question_a"].get("kind", "")
    kind_b = table["question_b"].get("kind", "")
    rows = [
        {
            "label": _label(kind_a, row["label"]),
            "cells": [_share(cell) for cell in row["cells"]],
        }
        for row in result["rows"]
    ]
    shown = {**table, "labels_b": labels_shown(kind_b, table["labels_b"])}
    cut = any(cell["cut"] for row in rows for cell in row["cells"])
    return {"crosstab": shown, "crosstab_rows": rows, "crosstab_cut": cut}


def breakdown_shown(result: dict[str, Any]) -> dict[str, Any]:
    """The page context of a finished breakdown: ``breakdown`` with each
    stratum's label, note, rows and mean written for the reader."""
    kind = result["result"]["question"].get("kind", "")
    by_kind = result["result"]["by"].get("kind", "")
    strata = []
    for item in result["strata"]:
        stratum = item["stratum"]
        note = stratum.get("note") or ""
        strata.append(
            {
                "stratum": {
                    **stratum,
                    "label": _label(by_kind, stratum["label"]),
                    # The note is a marked English sentence: its msgid, with
                    # the group minimum it names (none in older results).
                    "note": (
                        gettext(note) % {"minimum": stratum.get("minimum")}
                        if note
                        else ""
                    ),
                },
                "rows": [
                    {"label": _label(kind, row["label"]), **_share(row)}
                    for row in item["rows"]
                ],
                "mean": _number(item.get("mean", stratum.get("mean"))),
                "mean_low": _number(item.get("mean_low", stratum.get("mean_low"))),
                "mean_high": _number(item.get("mean_high", stratum.get("mean_high"))),
            }
        )
    cut = any(row["cut"] for item in strata for row in item["rows"])
    return {"breakdown": {"result": result["result"], "strata": strata, "cut": cut}}
