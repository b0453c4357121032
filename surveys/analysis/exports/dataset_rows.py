"""The rows of the per-respondent table: one per submission, as codes and
numbers (``coded_rows``), read in one pass over reports, plain answers, link
values and skip markers, each ordered by the submission's public id.

A question a submission did not answer gets, in every one of its columns, a
:class:`~surveys.analysis.exports.dataset_columns.Missing` cell saying why
(``surveys.collection.missing``): declined, left blank, unknown (a marker
stored before the two were told apart), or not shown (no report, no answer
and no marker: display logic hid it, or the question did not exist yet); and
its reason column, where it has one, the outcome's code.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import Q

from surveys.analysis.exports.csv_cells import CHUNK_SIZE
from surveys.analysis.exports.dataset_columns import (
    Block,
    Missing,
    Progress,
    Variable,
    link_names,
)
from surveys.analysis.exports.design import spec_revisions
from surveys.analysis.results import release
from surveys.authoring.models import Survey
from surveys.collection import missing, report_codec
from surveys.collection.models import (
    LinkValue,
    PlainAnswer,
    SkippedAnswer,
    Submission,
)
from surveys.collection.selectors import survey_records_language


# --- rows ---------------------------------------------------------------------------
def _submissions(survey: Survey, released: Q) -> Iterator[tuple[str, str]]:
    return (
        Submission.objects.filter(released, survey=survey)
        .order_by("public_id")
        .values_list("public_id", "language")
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _by_submission(rows: Iterable[tuple]) -> Iterator[tuple[str, list[tuple]]]:
    current: str | None = None
    group: list[tuple] = []
    for row in rows:
        if row[0] != current:
            if current is not None:
                yield current, group
            current, group = row[0], []
        group.append(row[1:])
    if current is not None:
        yield current, group


def _merged(
    survey: Survey,
) -> Iterator[tuple[str, str, list[list[tuple]]]]:
    """(public id, its language ("" unless recorded), [its reports, its plain
    answers, its link values, its skip markers]), by public id; one pass each.

    Only submissions released when the export began (``results.release``:
    those of the latest results snapshot, read once), so the file holds the
    dashboard's n and one that arrives or is released while the file is
    written is not half in it.
    """
    mark, bound = release.released_bounds(survey_id=survey.pk)
    released, submissions = (
        release.in_release(
            survey_id=survey.pk, last_submission_id=bound, field=field, with_test=False
        )
        for field in ("submission", "")
    )
    revisions = spec_revisions(survey)
    reports = _by_submission(
        (public_id, q, r, report_codec.decode(revisions[q][r], value, bits))
        for public_id, q, r, value, bits in release.released_reports(
            survey_id=survey.pk, watermark=mark
        )
        .order_by("submission__public_id", "question_id")
        .values_list(
            "submission__public_id", "question_id", "spec_revision", "value", "bits"
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )
    answers = _by_submission(
        PlainAnswer.objects.filter(released, question__survey=survey)
        .order_by("submission__public_id", "question_id")
        .values_list("submission__public_id", "question_id", "value", "other_text")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    links = _by_submission(
        LinkValue.objects.filter(released, submission__survey=survey)
        .order_by("submission__public_id", "name")
        .values_list("submission__public_id", "name", "value")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    skips = _by_submission(
        SkippedAnswer.objects.filter(released, submission__survey=survey)
        .order_by("submission__public_id", "question_id")
        .values_list("submission__public_id", "question_id", "reason")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    streams = [reports, answers, links, skips]
    heads = [next(stream, None) for stream in streams]
    for public_id, language in _submissions(survey, submissions):
        mine: list[list[tuple]] = []
        for index, stream in enumerate(streams):
            head = heads[index]
            if head is not None and head[0] == public_id:
                mine.append(head[1])
                heads[index] = next(stream, None)
            else:
                mine.append([])
        yield public_id, language, mine


def coded_rows(
    survey: Survey, found: list[Block], progress: Progress = None
) -> Iterator[list[Any]]:
    """Rows of the wide table as codes and numbers (None: no value; a
    :class:`Missing` cell: the question went unanswered, and why)."""
    by_question: dict[int, list[Block]] = {}
    for block in found:
        by_question.setdefault(block.question.pk, []).append(block)
    total = Submission.objects.filter(survey=survey).count() if progress else 0
    links = link_names(survey)
    language_column = survey_records_language(survey)
    merged = enumerate(_merged(survey), start=1)
    for done, (public_id, language, streams) in merged:
        reports, answers, link_values, skips = streams
        cells: dict[int, list[Any]] = {}  # id(block) -> its cells
        for question_id, revision, payload in reports:
            for block in by_question.get(question_id, []):
                if revision in block.revisions:
                    cells[id(block)] = block.decode(payload)
                    if block.revision_column:
                        cells[id(block)].append(revision)
        for question_id, value, other_text in answers:
            for block in by_question.get(question_id, []):
                cells[id(block)] = block.decode(value)
                if block.other:
                    cells[id(block)].append(other_text or None)
        given = dict(link_values)
        row: list[Any] = [public_id]
        if language_column:
            row.append(language or None)
        row.extend(given.get(name) for name in links)
        answered = {q for q, *_ in reports} | {q for q, *_ in answers}
        why = dict(skips)
        for block in found:
            row.extend(_block_cells(block, cells.get(id(block)), answered, why))
        yield row
        if progress and total and done % CHUNK_SIZE == 0:
            progress(min(done / total, 1.0))
    if progress:
        progress(1.0)


def _block_cells(
    block: Block, cells: list[Any] | None, answered: set[int], why: dict[int, str]
) -> list[Any]:
    """One block's cells in a row: its values (then its revision), or a
    :class:`Missing` cell in each column when the question went unanswered;
    then the reason column's code, where the question has one."""
    question = block.question.pk
    reason = None if question in answered else why.get(question, missing.NOT_SHOWN)
    if cells is None:
        # Answered under another layout (its own block holds the values).
        fill = None if reason is None else Missing(reason)
        cells = [fill] * len(block.variables)
        if block.revision_column:
            cells.append(None)
    if block.reason_column:
        cells = [*cells, None if reason is None else missing.CODES[reason]]
    return cells


def labelled(variables_: list[Variable], row: list[Any]) -> list[Any]:
    out = []
    for variable, cell in zip(variables_, row, strict=True):
        if cell is None or isinstance(cell, Missing):
            out.append("")
        elif variable.factor:
            out.append(variable.value_labels.get(cell, str(cell)))
        elif isinstance(cell, float) and cell.is_integer():
            out.append(int(cell))
        else:
            out.append(cell)
    return out
