"""The regression and weighted-estimate tables as pages and CSV files show them.

Both read a finished job's stored result (``regressions.regression_result``,
``weights.weighted_result``); the CSV files carry full-precision numbers
through the csv module (``csv_cells.csv_lines``: formula-like text neutralised).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext

from surveys.analysis import wording
from surveys.analysis.exports.csv_cells import csv_lines
from surveys.analysis.pages.dashboard import labels_shown
from surveys.analysis.pages.numbers import localized, number, percent
from surveys.authoring.catalogue import stored_label_shown


def p_value(value: float | None) -> str:
    """A p-value as papers print it: three decimals, or "< 0.001" (with the
    reader's decimal comma)."""
    if value is None:
        return "—"
    return localized("< 0.001" if value < 0.001 else f"{value:.3f}")


def _range(low: str, high: str) -> str:
    """An interval's ends as the reader reads them ("0.12 to 0.34")."""
    return gettext("%(low)s to %(high)s") % {"low": low, "high": high}


def _term(term: str) -> str:
    """A coefficient's name: the intercept in the reader's language; every
    other term is built from the researcher's own question and answer text."""
    return gettext("(Intercept)") if term == "(Intercept)" else term


def regression_rows(result: dict[str, Any]) -> list[dict[str, str]]:
    """The coefficient table's rows, formatted for the page."""
    rows = []
    for row in result["rows"]:
        shown = {
            "term": _term(row["term"]),
            "estimate": number(row["estimate"]),
            "std_error": number(row["std_error"]),
            "z": number(row["statistic"], 2),
            "p": p_value(row["p_value"]),
            "ci": _range(number(row["ci_low"]), number(row["ci_high"])),
        }
        if result["model"] == "logistic":
            shown["odds_ratio"] = number(row["odds_ratio"])
            shown["or_ci"] = _range(number(row["or_low"]), number(row["or_high"]))
        rows.append(shown)
    return rows


REGRESSION_COLUMNS = [
    "term",
    "coefficient",
    "std_error",
    "z",
    "p_value",
    "ci95_low",
    "ci95_high",
]
ODDS_COLUMNS = ["odds_ratio", "odds_ratio_ci95_low", "odds_ratio_ci95_high"]


def regression_csv(result: dict[str, Any]) -> Iterator[str]:
    """The coefficient table as CSV lines, one row per term."""
    logistic = result["model"] == "logistic"
    header = REGRESSION_COLUMNS + (ODDS_COLUMNS if logistic else [])
    keys = ["term", "estimate", "std_error", "statistic", "p_value", "ci_low"]
    keys += ["ci_high"] + (["odds_ratio", "or_low", "or_high"] if logistic else [])
    rows = ([_cell(row[key]) for key in keys] for row in result["rows"])
    return csv_lines(header, rows)


def _cell(value: Any) -> Any:
    return "" if value is None else value


def _row_label(row: dict[str, Any], label: str) -> str:
    """A weighted row's label: a mean's is stored as a note, worded for the
    reader (results stored before that carry the English label, shown as is)."""
    return wording.shown(row["label_note"]) if "label_note" in row else label


def _show(value: float, measure: str) -> str:
    return percent(value) if measure == "share" else number(value)


def weighted_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every protected question with its formatted rows, for the page."""
    shown = []
    for entry in result["questions"]:
        measure = entry.get("measure", "share")
        stored = [row["label"] for row in entry["rows"]]
        labels = labels_shown(entry.get("kind", ""), stored)
        rows = [
            {
                "label": _row_label(row, label),
                "unweighted": _show(row["unweighted"], measure),
                "unweighted_ci": _range(
                    _show(row["unweighted_low"], measure),
                    _show(row["unweighted_high"], measure),
                ),
                "weighted": _show(row["weighted"], measure),
                "weighted_ci": _range(
                    _show(row["weighted_low"], measure),
                    _show(row["weighted_high"], measure),
                ),
            }
            for row, label in zip(entry["rows"], labels, strict=True)
        ]
        deff = entry.get("design_effect")
        shown.append(
            {
                **entry,
                "shown_rows": rows,
                "shown_epsilon": number(entry["epsilon"], 2),
                "shown_mechanism": stored_label_shown(entry["mechanism_label"]),
                "shown_deff": number(deff, 2) if deff is not None else "—",
                "shown_note": wording.shown(entry["note"]) if entry.get("note") else "",
            }
        )
    return shown


def margin_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each margin question's targets, sample shares and weighted shares."""
    return [
        {
            "text": margin["text"],
            "rows": [
                {
                    "label": label,
                    "target": percent(target),
                    "sample": percent(sample),
                    "weighted": percent(weighted),
                }
                for label, target, sample, weighted in zip(
                    labels_shown(margin.get("kind", ""), margin["labels"]),
                    margin["targets"],
                    margin["sample"],
                    margin["weighted"],
                    strict=True,
                )
            ],
        }
        for margin in result["margins"]
    ]


WEIGHTED_COLUMNS = [
    "question",
    "answer",
    "measure",
    "n",
    "unweighted_estimate",
    "unweighted_ci95_low",
    "unweighted_ci95_high",
    "weighted_estimate",
    "weighted_ci95_low",
    "weighted_ci95_high",
    "design_effect",
]


def weighted_csv(result: dict[str, Any]) -> Iterator[str]:
    """Weighted and unweighted estimates as CSV lines, one row per answer (a
    share, as a proportion) or per question (a mean, in its units)."""
    rows = (
        [
            entry["text"],
            row["label"],
            entry.get("measure", ""),
            entry["n"],
            row["unweighted"],
            row["unweighted_low"],
            row["unweighted_high"],
            row["weighted"],
            row["weighted_low"],
            row["weighted_high"],
            entry.get("design_effect", ""),
        ]
        for entry in result["questions"]
        for row in entry["rows"]
    )
    return csv_lines(WEIGHTED_COLUMNS, rows)
