"""Joint and pattern tallies: breakdowns and weights without reading reports.

A breakdown of a protected question by an unprotected choice question ``B``
estimates the question within each answer of ``B``: it needs, per answer
``b``, the aggregate of the reports of the submissions that answered ``b``
(:class:`~surveys.analysis.models.JointTally`, one row per (question,
revision, ``B``, ``b``)).  Weights to population margins chosen after
fielding give one weight per *pattern* of answers to the unprotected choice
questions, so a weighted estimate needs, per pattern, its submissions and
its reports' moments (``ldp.estimators.grouped``;
:class:`~surveys.analysis.models.PatternTally`; at most one row per pattern
that occurs and protected question, never more than the product of the
questions' answer counts, each plus one for a skip).

Both are kept by the worker path that folds reports
(``services.tallies_refresh``), in the same transaction and under the same
watermark lock as the report tallies, from the window's own rows: each
report joins the unprotected choice answers of its submission (read by
ranges of submission ids on the (submission, question) index, like
``answers.counts_of``), and each submission the window covers first counts
once in its pattern (with a protected report or none: a submission with no
report counts in its pattern's respondents only).  So a batch reads its own
reports and answers and nothing else; a withdrawal subtracts what it added;
a recount rebuilds them (``services.count_cells``).

Invariant (tested against :func:`~services.count_cells`): the tallies equal
the joint and pattern aggregates of the survey's reports with
``id <= watermark``.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import ldp
from ldp.estimators.grouped import GroupMoments, group_moments
from surveys.analysis.models import JointTally, PatternTally
from surveys.authoring.models import Question
from surveys.collection import report_codec
from surveys.collection.models import PlainAnswer
from surveys.collection.questions import CHOICE_KINDS

# Submission ids per query (a range and an IN check), as ``answers.CHUNK``.
CHUNK = 5_000
# A snapshot copies the pattern tallies when there are at most this many
# rows; beyond it weights read the reports (as before these tallies).
PATTERN_ROWS_MAX = 5_000

Row = tuple[int, int, int, Any, Any]  # submission, question, revision, value, bits


class SpecSource(Protocol):
    """What ``services._Specs`` offers: specs and mechanisms per revision."""

    specs: dict[tuple[int, int], Any]

    def mechanism(self, key: tuple[int, int]) -> ldp.Mechanism: ...


def pattern_key(pattern: dict[str, int]) -> str:
    """SHA-256 of the pattern's canonical JSON (sorted keys)."""
    text = json.dumps(pattern, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def choice_questions(survey_id: int) -> list[int]:
    """The survey's unprotected one-answer choice questions (they define
    breakdown groups and weighting margins)."""
    return list(
        Question.objects.filter(
            survey_id=survey_id, is_private=False, kind__in=CHOICE_KINDS
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def choices_of(
    submission_ids: Iterable[int], question_ids: list[int]
) -> dict[int, dict[str, int]]:
    """submission id → {question id (text): answer} for those questions.

    Read by ranges of submission ids only, the questions kept in Python: a
    filter on the questions let the planner prefer the question index and
    read every answer of those questions, in proportion to n."""
    found: dict[int, dict[str, int]] = defaultdict(dict)
    ids = sorted(set(submission_ids))
    asked = set(question_ids)
    if not question_ids:
        return found
    for i in range(0, len(ids), CHUNK):
        chunk = ids[i : i + CHUNK]
        wanted = set(chunk)
        for submission_id, question_id, value in (
            PlainAnswer.objects.filter(
                submission_id__gte=chunk[0],
                submission_id__lte=chunk[-1],
            )
            .order_by()
            .values_list("submission_id", "question_id", "value")
        ):
            if (
                submission_id in wanted
                and question_id in asked
                and isinstance(value, int | float)
            ):
                found[submission_id][str(question_id)] = int(value)
    return found


@dataclass
class Cells:
    """Joint and pattern aggregates of some reports; they add and subtract.

    ``joint[(question, revision, by, answer)]``: SupportCounts;
    ``grouped[(pattern key, question, revision)]``: (SupportCounts, moments);
    ``respondents[pattern key]``: submissions; ``patterns``: key → pattern.
    """

    joint: dict[tuple[int, int, int, int], ldp.SupportCounts] = field(
        default_factory=dict
    )
    grouped: dict[tuple[str, int, int], tuple[ldp.SupportCounts, GroupMoments]] = field(
        default_factory=dict
    )
    respondents: dict[str, int] = field(default_factory=dict)
    patterns: dict[str, dict[str, int]] = field(default_factory=dict)

    def __iadd__(self, other: Cells) -> Cells:
        for key, stat in other.joint.items():
            held = self.joint.get(key)
            self.joint[key] = stat if held is None else held + stat
        for key, (stat, moments) in other.grouped.items():
            had = self.grouped.get(key)
            self.grouped[key] = (
                (stat, moments) if had is None else (had[0] + stat, had[1] + moments)
            )
        for key, count in other.respondents.items():
            self.respondents[key] = self.respondents.get(key, 0) + count
        self.patterns.update(other.patterns)
        return self

    def negated(self) -> Cells:
        def minus(stat: ldp.SupportCounts) -> ldp.SupportCounts:
            return ldp.SupportCounts(-stat.n, -stat.counts, stat.spec)

        return Cells(
            {k: minus(s) for k, s in self.joint.items()},
            {k: (minus(s), m.negated()) for k, (s, m) in self.grouped.items()},
            {k: -c for k, c in self.respondents.items()},
            dict(self.patterns),
        )


def cells_of(
    rows: list[Row],
    specs: SpecSource,
    choices: dict[int, dict[str, int]],
    covered: Iterable[int],
) -> Cells:
    """The joint and pattern aggregates of ``rows`` (stored reports), each
    joined to its submission's answers ``choices``; ``covered``: the
    submissions to count in their pattern (those seen for the first time)."""
    cells = Cells()
    by_joint: dict[tuple[int, int, int, int], list] = defaultdict(list)
    by_pattern: dict[tuple[str, int, int], list] = defaultdict(list)
    for submission_id, question_id, revision, value, bits in rows:
        pattern = choices.get(submission_id, {})
        key = pattern_key(pattern)
        cells.patterns[key] = pattern
        by_pattern[(key, question_id, revision)].append((value, bits))
        for by, answer in pattern.items():
            by_joint[(question_id, revision, int(by), answer)].append((value, bits))
    for (question_id, revision, by, answer), stored in by_joint.items():
        mechanism = specs.mechanism((question_id, revision))
        cells.joint[(question_id, revision, by, answer)] = report_codec.stored_counts(
            mechanism, stored
        )
    for (key, question_id, revision), stored in by_pattern.items():
        mechanism = specs.mechanism((question_id, revision))
        spec = specs.specs[(question_id, revision)]
        # Decoded (a packed form is what ``aggregate`` counts, not rows).
        array = mechanism.reports_to_array(
            [
                r
                for _, r in report_codec.decode_rows(
                    spec, ((0, v, b) for v, b in stored)
                )
            ]
        )
        cells.grouped[(key, question_id, revision)] = (
            report_codec.stored_counts(mechanism, stored),
            group_moments(mechanism, array),
        )
    for submission_id in covered:
        pattern = choices.get(submission_id, {})
        key = pattern_key(pattern)
        cells.patterns[key] = pattern
        cells.respondents[key] = cells.respondents.get(key, 0) + 1
    return cells


def of_rows(
    survey_id: int, rows: list[Row], specs: SpecSource, covered: Iterable[int]
) -> Cells:
    """:func:`cells_of` of stored rows, reading the answers of their
    submissions and of the covered ones (some may have no report)."""
    covered = list(covered)
    questions = choice_questions(survey_id)
    wanted = {r[0] for r in rows} | set(covered)
    choices = choices_of(wanted, questions) if questions else {}
    return cells_of(rows, specs, choices, covered)


def _sum(held: dict[str, Any] | None, stat: ldp.SupportCounts) -> ldp.SupportCounts:
    return stat if held is None else ldp.SupportCounts.from_dict(held) + stat


def add(*, survey_id: int, change: Cells) -> None:
    """Add ``change`` to the survey's joint and pattern tallies.  Call it
    holding the survey's watermark lock (every writer does)."""
    if change.joint:
        held_joint = {
            (t.question_id, t.spec_revision, t.by_id, t.by_value): t
            for t in JointTally.objects.filter(
                survey_id=survey_id,
                question_id__in={k[0] for k in change.joint},
                by_id__in={k[2] for k in change.joint},
            )
        }
        changed, new, gone = [], [], []
        for (question_id, revision, by, answer), stat in change.joint.items():
            tally = held_joint.get((question_id, revision, by, answer))
            total = _sum(tally.stat if tally else None, stat)
            if tally is None:
                new.append(
                    JointTally(
                        survey_id=survey_id,
                        question_id=question_id,
                        spec_revision=revision,
                        by_id=by,
                        by_value=answer,
                        n=total.n,
                        stat=total.to_dict(),
                    )
                )
            elif total.n == 0:
                gone.append(tally.pk)  # a withdrawal took its last report
            else:
                tally.n, tally.stat = total.n, total.to_dict()
                changed.append(tally)
        JointTally.objects.bulk_update(changed, ["n", "stat"])
        JointTally.objects.bulk_create(new)
        JointTally.objects.filter(pk__in=gone).delete()
    keys = set(change.respondents) | {k[0] for k in change.grouped}
    if not keys:
        return
    held = {
        (t.pattern_key, t.question_id, t.spec_revision): t
        for t in PatternTally.objects.filter(
            survey_id=survey_id, pattern_key__in=sorted(keys)
        )
    }
    changed_rows, new_rows, gone_rows = [], [], []

    def put(key: tuple[str, int | None, int], **values: Any) -> None:
        tally = held.get(key)
        if tally is None:
            new_rows.append(
                PatternTally(
                    survey_id=survey_id,
                    pattern_key=key[0],
                    pattern=change.patterns.get(key[0], {}),
                    question_id=key[1],
                    spec_revision=key[2],
                    **values,
                )
            )
            return
        if values["n"] == 0:
            gone_rows.append(tally.pk)  # a withdrawal took its last one
            return
        for name, value in values.items():
            setattr(tally, name, value)
        changed_rows.append(tally)

    for key, count in change.respondents.items():
        tally = held.get((key, None, 0))
        put((key, None, 0), n=(tally.n if tally else 0) + count)
    for (key, question_id, revision), (stat, moments) in change.grouped.items():
        tally = held.get((key, question_id, revision))
        total = _sum(tally.stat if tally else None, stat)
        if tally is not None and tally.moments is not None:
            moments = GroupMoments.from_dict(tally.moments) + moments
        put(
            (key, question_id, revision),
            n=total.n,
            stat=total.to_dict(),
            moments=moments.to_dict(),
        )
    PatternTally.objects.bulk_update(changed_rows, ["n", "stat", "moments"])
    PatternTally.objects.bulk_create(new_rows)
    PatternTally.objects.filter(pk__in=gone_rows).delete()


def replace(*, survey_id: int, cells: Cells) -> None:
    """Replace the survey's joint and pattern tallies (a recount)."""
    JointTally.objects.filter(survey_id=survey_id).delete()
    PatternTally.objects.filter(survey_id=survey_id).delete()
    add(survey_id=survey_id, change=cells)


def stored(*, survey_id: int) -> dict[str, Any]:
    """The tallies as a snapshot stores them (``results.cells`` reads them):
    ``{"joint": [[question, revision, by, answer, n, counts], …],
    "patterns": [[pattern, respondents, {question: [revision, n, counts,
    moments]}], …] or None}`` (None beyond ``PATTERN_ROWS_MAX`` rows).
    Read it under the watermark lock to pair it with the report tallies."""
    joint = [
        [q, r, by, answer, n, stat["counts"]]
        for q, r, by, answer, n, stat in JointTally.objects.filter(
            survey_id=survey_id
        ).values_list("question_id", "spec_revision", "by_id", "by_value", "n", "stat")
    ]
    rows = list(
        PatternTally.objects.filter(survey_id=survey_id)
        .order_by("pattern_key", "question_id", "spec_revision")
        .values_list(
            "pattern_key",
            "pattern",
            "question_id",
            "spec_revision",
            "n",
            "stat",
            "moments",
        )[: PATTERN_ROWS_MAX + 1]
    )
    if len(rows) > PATTERN_ROWS_MAX:
        return {"joint": joint, "patterns": None}
    patterns: dict[str, list] = {}
    for key, pattern, question_id, revision, n, stat, moments in rows:
        entry = patterns.setdefault(key, [pattern, 0, {}])
        if question_id is None:
            entry[1] = n
        else:
            entry[2].setdefault(str(question_id), []).append(
                [revision, n, stat["counts"], moments]
            )
    return {"joint": joint, "patterns": list(patterns.values())}


def snapshot_form(counted: Cells) -> dict[str, Any]:
    """``counted`` (a recount) in the form :func:`stored` returns."""
    joint = [
        [q, r, by, answer, int(stat.n), [int(c) for c in stat.counts]]
        for (q, r, by, answer), stat in sorted(counted.joint.items())
    ]
    keys = set(counted.respondents) | {k[0] for k in counted.grouped}
    if len(keys) + len(counted.grouped) > PATTERN_ROWS_MAX:
        return {"joint": joint, "patterns": None}
    patterns: dict[str, list] = {
        key: [counted.patterns.get(key, {}), counted.respondents.get(key, 0), {}]
        for key in sorted(keys)
    }
    for (key, q, r), (stat, moments) in sorted(counted.grouped.items()):
        patterns[key][2].setdefault(str(q), []).append(
            [r, int(stat.n), [int(c) for c in stat.counts], moments.to_dict()]
        )
    return {"joint": joint, "patterns": list(patterns.values())}
