"""The joint and pattern tallies a results snapshot holds, as ldp aggregates.

A snapshot stores, beside its results, the joint and pattern tallies at its
watermark (``tallies.cells.stored``), read with the report tallies under the
watermark lock.  Breakdowns and weighted estimates asked of that snapshot
read them here, so they cost the same whatever the number of reports, and
describe exactly the snapshot's reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import ldp
from ldp.estimators.grouped import GroupMoments
from surveys.analysis.models import ResultSnapshot


@dataclass(frozen=True)
class PatternCell:
    """One pattern of answers to the unprotected choice questions: its
    submissions and, per protected question, its reports' aggregate and
    moments under the question's current revision."""

    pattern: dict[str, int]
    respondents: int
    stats: dict[int, tuple[ldp.SupportCounts, GroupMoments]]


def snapshot_cells(*, survey_id: int, watermark: int) -> dict[str, Any] | None:
    """The cells of the survey's snapshot at ``watermark`` (None: no such
    snapshot, or one stored before it held cells)."""
    cells = (
        ResultSnapshot.objects.filter(survey_id=survey_id, watermark=watermark)
        .values_list("cells", flat=True)
        .first()
    )
    return cells if cells and "joint" in cells else None


def joint_groups(
    cells: dict[str, Any], *, question_id: int, revision: int, by: int, spec: Any
) -> dict[int, ldp.SupportCounts]:
    """answer of ``by`` → the aggregate of ``question``'s reports (under
    ``revision``) of the submissions that gave it."""
    return {
        answer: ldp.SupportCounts(n, np.asarray(counts, dtype=np.int64), spec)
        for q, r, b, answer, n, counts in cells["joint"]
        if q == question_id and r == revision and b == by and n > 0
    }


def pattern_cells(
    cells: dict[str, Any], revisions: dict[int, tuple[int, Any]]
) -> list[PatternCell] | None:
    """Every pattern with its reports under each question's current
    ``revisions[question] = (revision, spec)``; None when the snapshot holds
    too many patterns to keep (``tallies.cells.PATTERN_ROWS_MAX``)."""
    if cells.get("patterns") is None:
        return None
    found = []
    for pattern, respondents, questions in cells["patterns"]:
        stats = {}
        for question, entries in questions.items():
            if int(question) not in revisions:
                continue
            revision, spec = revisions[int(question)]
            for r, n, counts, moments in entries:
                if r == revision and n > 0:
                    stats[int(question)] = (
                        ldp.SupportCounts(n, np.asarray(counts, dtype=np.int64), spec),
                        GroupMoments.from_dict(moments),
                    )
        found.append(PatternCell(pattern, int(respondents), stats))
    return found
