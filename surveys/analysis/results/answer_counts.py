"""Counts of unprotected answers and skips, as results read them.

The tallies themselves are written by the workers (``tallies.answers``):
one row per (question, distinct answer) and per optional question, so reading
them costs the same whatever the number of submissions.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from surveys.analysis.models import PlainAnswerTally, SkipTally


def _canonical(value: Any) -> Any:
    """``value`` with every number a float (1 and 1.0 are one answer, as in
    PostgreSQL's jsonb), booleans and strings as they are."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    return value


def value_key(value: Any) -> str:
    """The key of one answer: SHA-256 of its canonical JSON (sorted keys)."""
    text = json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class AnswerCounts:
    """Unprotected answers and skips of some submissions, as counts.

    ``plain[(question_id, value_key)] = (value, count)``;
    ``skipped[(question_id, reason)] = count``, ``reason`` one of
    ``SkipTally.REASONS`` (declined, blank, unknown).  Counts add and subtract.
    """

    plain: dict[tuple[int, str], tuple[Any, int]] = field(default_factory=dict)
    skipped: Counter[tuple[int, str]] = field(default_factory=Counter)

    def add_plain(self, question_id: int, value: Any, count: int) -> None:
        key = (question_id, value_key(value))
        held = self.plain.get(key)
        self.plain[key] = (
            (value if held is None else held[0]),
            count + (held[1] if held else 0),
        )

    def negated(self) -> AnswerCounts:
        return AnswerCounts(
            {k: (v, -c) for k, (v, c) in self.plain.items()},
            Counter({k: -c for k, c in self.skipped.items()}),
        )

    def by_question(self) -> dict[int, list[tuple[Any, int]]]:
        """(value, count) pairs per question (counts above 0), as
        ``selectors.results_from_tallies`` takes them."""
        found: dict[int, list[tuple[Any, int]]] = {}
        for (question_id, _), (value, count) in sorted(self.plain.items()):
            if count > 0:
                found.setdefault(question_id, []).append((value, count))
        return found

    def skips(self) -> dict[int, int]:
        """Skips of every reason per question id (those above 0)."""
        total: Counter[int] = Counter()
        for (question_id, _), count in self.skipped.items():
            total[question_id] += count
        return {q: c for q, c in total.items() if c > 0}

    def skip_reasons(self) -> dict[int, dict[str, int]]:
        """Per question id with a skip: its count for each of ``REASONS``."""
        found: dict[int, dict[str, int]] = {}
        for (question_id, reason), count in sorted(self.skipped.items()):
            if count > 0:
                found.setdefault(question_id, dict.fromkeys(REASONS, 0))[reason] = count
        return found


REASONS = SkipTally.REASONS


def stored_counts(*, survey_id: int) -> AnswerCounts:
    """The tallies as they stand (one row per question and distinct answer).
    Read it under the watermark lock to pair it with the report tallies."""
    counts = AnswerCounts()
    for question_id, key, value, count in PlainAnswerTally.objects.filter(
        question__survey_id=survey_id
    ).values_list("question_id", "value_key", "value", "count"):
        counts.plain[(question_id, key)] = (value, count)
    for row in SkipTally.objects.filter(question__survey_id=survey_id).values(
        "question_id", *REASONS
    ):
        for reason in REASONS:
            if row[reason]:
                counts.skipped[(row["question_id"], reason)] = row[reason]
    return counts
