"""The raw randomized reports, streamed as CSV or JSON, and paged for the API.

The reports are already private (randomized on the respondent's device), and
each export carries every spec the reports were made under, so anyone can
re-estimate with ``ldp.build(spec).aggregate(reports)``.  Rows are ordered by
their random public identifiers, never by arrival.

Every export and API page stops at the released watermark, read once when it
starts (``results.release``): the reports and submissions of the survey's
latest results snapshot, so it holds the same n as the dashboard, and held
back submissions appear in none of them until their batch is released.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
from django.db.models import OuterRef, Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from surveys.analysis.exports.csv_cells import (
    CHUNK_SIZE,
    compact_json,
    csv_lines,
    neutralise,
)
from surveys.analysis.exports.design import questions_document, spec_revisions
from surveys.analysis.results import release
from surveys.authoring.models import Survey
from surveys.collection import missing, report_codec
from surveys.collection.models import (
    PlainAnswer,
    Report,
    SkippedAnswer,
    Submission,
)
from surveys.collection.selectors import submission_languages, survey_records_language


def _reports(
    survey: Survey,
    watermark: int,
    after: str = "",
    limit: int | None = None,
    include_test: bool = False,
    revisions: dict[int, dict[int, dict]] | None = None,
) -> Iterator[tuple[Any, ...]]:
    """Report rows ``(public_id, submission public_id, received_at, question id,
    spec revision, report, is_test)`` released at ``watermark`` (and the test
    ones with ``include_test``), the report decoded from its stored columns
    into the JSON the device sent (``report_codec``)."""
    # Ordered by the random public identifier, never by id: the order of an
    # export says nothing about the order in which reports arrived.
    manager = Report.all_objects if include_test else Report.objects
    released = Q(id__lte=watermark) | Q(is_test=True) if include_test else None
    rows = (
        manager.filter(released or Q(id__lte=watermark))
        .filter(survey=survey, public_id__gt=after)
        .order_by("public_id")
        .values_list(
            "public_id",
            "submission__public_id",
            "submission__received_at",
            "question_id",
            "spec_revision",
            "value",
            "bits",
            "is_test",
        )
    )
    specs = spec_revisions(survey) if revisions is None else revisions
    found = rows[:limit] if limit is not None else rows.iterator(CHUNK_SIZE)
    for *head, question_id, revision, value, bits, is_test in found:
        spec = specs[question_id][revision]
        report = report_codec.decode(spec, value, bits)
        yield (*head, question_id, revision, report, is_test)


def _in_release(survey: Survey, submissions: int, include_test: bool, field: str) -> Q:
    return release.in_release(
        survey_id=survey.pk,
        last_submission_id=submissions,
        field=field,
        with_test=include_test,
    )


def _plain_answers(survey: Survey, submissions: int, include_test: bool = False):
    rows = PlainAnswer.objects.filter(
        _in_release(survey, submissions, include_test, "submission"),
        question__survey=survey,
    )
    return (
        rows.order_by("submission__public_id", "question_id")
        .values_list(
            "submission__public_id",
            "question_id",
            "value",
            "submission__is_test",
            "other_text",
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _languages(survey: Survey, submissions: int, include_test: bool = False):
    """(submission public id, language, is_test) of every released submission,
    by public id: only called for a survey that records languages."""
    rows = Submission.objects.filter(
        _in_release(survey, submissions, include_test, ""), survey=survey
    )
    return (
        rows.order_by("public_id")
        .values_list("public_id", "language", "is_test")
        .iterator(CHUNK_SIZE)
    )


def _missing_codes(
    survey: Survey, submissions: int, include_test: bool = False
) -> Iterator[tuple[str, int, int, bool]]:
    """``(submission public id, question id, code, is_test)`` for every
    question a submission did not answer, by public id then question order:
    its skip's code (declined, left blank, or unknown) or, where nothing at
    all is stored for it, "not shown" (``surveys.collection.missing.CODES``).

    One streamed read: each released submission with, beside it, the
    questions it has a report or an answer to and its skips (arrays read by
    index, one per table), so nothing per submission is sent to the database
    and a submission that answered everything costs one comparison."""
    questions = list(
        survey.questions.order_by("position", "id").values_list("pk", flat=True)
    )
    mine = OuterRef("pk")
    skips = SkippedAnswer.objects.filter(submission_id=mine).order_by("question_id")
    rows = (
        Submission.objects.filter(
            _in_release(survey, submissions, include_test, ""), survey=survey
        )
        .order_by("public_id")
        .values_list(
            "public_id",
            "is_test",
            ArraySubquery(
                Report.all_objects.filter(survey=survey, submission_id=mine)
                .order_by()
                .values("question_id")
            ),
            ArraySubquery(
                PlainAnswer.objects.filter(submission_id=mine)
                .order_by()
                .values("question_id")
            ),
            ArraySubquery(skips.values("question_id")),
            ArraySubquery(skips.values("reason")),
        )
        .iterator(CHUNK_SIZE)
    )
    count = len(questions)
    for public_id, is_test, reported, answered, skipped, reasons in rows:
        done = set(reported)
        done.update(answered)
        if len(done) >= count and all(q in done for q in questions):
            continue
        why = dict(zip(skipped, reasons, strict=True))
        for question in questions:
            if question not in done:
                code = missing.CODES[why.get(question, missing.NOT_SHOWN)]
                yield public_id, question, code, is_test


def missing_codes_document() -> list[dict[str, Any]]:
    """The missing-value codes and what each means (codebooks, JSON heads)."""
    return [
        {"code": missing.CODES[outcome], "outcome": outcome, "meaning": label}
        for outcome, label in missing.LABELS.items()
    ]


def report_document(row) -> dict[str, Any]:
    report_id, submission_id, received_at, question_id, revision, payload, _ = row
    return {
        "report_id": report_id,
        "submission_id": submission_id,
        "received_at": received_at.isoformat(),
        "question_id": question_id,
        "spec_revision": revision,
        "report": payload,
    }


# Distinct cell texts an export keeps once computed (a report's or an
# answer's JSON, a day's ISO time): a survey's reports repeat few values (one
# per option or output), so almost every row reuses one; past this many the
# rest are computed each time, so memory stays flat whatever the data.
CELL_CACHE_MAX = 4096


def _report_rows(
    survey: Survey,
    watermark: int,
    include_test: bool,
    revisions: dict[int, dict[int, dict]],
) -> Iterator[tuple[Any, ...]]:
    """The CSV's "report" rows, with the report's ``is_test`` last: what
    :func:`_reports` gives, read without decoding a report or formatting a
    time per row (a repeated value's cell is computed once, ``CELL_CACHE_MAX``)
    and without the report's own public id, which the CSV does not carry."""
    manager = Report.all_objects if include_test else Report.objects
    released = Q(id__lte=watermark) | Q(is_test=True) if include_test else None
    rows = (
        manager.filter(released or Q(id__lte=watermark))
        .filter(survey=survey)
        .order_by("public_id")
        .values_list(
            "submission__public_id",
            # As text: one C-level read per row, its ISO form computed once
            # per distinct day (``received_at`` is stored truncated).
            Cast("submission__received_at", output_field=TextField()),
            "question_id",
            "spec_revision",
            "value",
            "bits",
            "is_test",
        )
        .iterator(CHUNK_SIZE)
    )
    cells: dict[tuple[int, int, Any, Any], str] = {}
    times: dict[str, str] = {}
    for submission_id, received, question_id, revision, value, bits, test in rows:
        if bits is not None and not isinstance(bits, bytes):
            bits = bytes(bits)  # a memoryview, as some drivers give bytea
        key = (question_id, revision, value, bits)
        cell = cells.get(key)
        if cell is None:
            spec = revisions[question_id][revision]
            cell = neutralise(compact_json(report_codec.decode(spec, value, bits)))
            if len(cells) < CELL_CACHE_MAX:
                cells[key] = cell
        when = times.get(received)
        if when is None:
            when = _iso_time(received)
            if len(times) < CELL_CACHE_MAX:
                times[received] = when
        yield ("report", question_id, revision, submission_id, when, "", cell, test)


def _iso_time(text: str) -> str:
    """A ``timestamptz`` as PostgreSQL writes it as text, in ISO 8601 in the
    connection's time zone: what ``datetime.isoformat`` gives for the value
    Django reads (``report_document``)."""
    moment = datetime.fromisoformat(text).astimezone(connection.timezone)
    return moment.isoformat()


def _answer_rows(
    survey: Survey, submissions: int, include_test: bool
) -> Iterator[tuple[Any, ...]]:
    """The CSV's "answer" rows and, after one with typed words beside
    "Other, please specify", its "other" row, each with ``is_test`` last.
    The answer is read as the JSON text PostgreSQL stores (what Django's
    ``JSONField`` decodes), its cell computed once per distinct text."""
    rows = PlainAnswer.objects.filter(
        _in_release(survey, submissions, include_test, "submission"),
        question__survey=survey,
    )
    cells: dict[str, str] = {}
    for submission_id, question_id, text, test, other in (
        rows.order_by("submission__public_id", "question_id")
        .values_list(
            "submission__public_id",
            "question_id",
            Cast("value", output_field=TextField()),
            "submission__is_test",
            "other_text",
        )
        .iterator(chunk_size=CHUNK_SIZE)
    ):
        cell = cells.get(text)
        if cell is None:
            cell = neutralise(compact_json(json.loads(text)))
            if len(cells) < CELL_CACHE_MAX:
                cells[text] = cell
        yield ("answer", question_id, "", submission_id, "", "", cell, test)
        if other:  # typed beside "Other, please specify", as typed
            yield ("other", question_id, "", submission_id, "", "", other, test)


REPORT_COLUMNS = [
    "record",
    "question_id",
    "spec_revision",
    "submission_id",
    "received_at",
    "question",
    "value",
]


def reports_csv(survey: Survey, include_test: bool = False) -> Iterator[str]:
    """Long-format CSV: "spec" rows (value = the compiled spec as JSON) first,
    then one "report" row per randomized report (value = the report as JSON),
    then "answer" rows for questions marked not protected, then "missing"
    rows, one per question a submission did not answer (value = its
    missing-value code: -1 not shown by display logic, -2 left blank, -3
    declined, -9 declined or left blank, stored before the two were told
    apart), then, only if the survey records each response's language (an
    unprotected field the researcher declared), a "language" row per
    submission (value = its code).

    ``include_test``: the owner's test responses too, each row marked in an
    extra ``is_test`` column (true/false); they are never in any estimate.

    Every row is built with its ``is_test`` last and written without it or
    with it as text; the reports and answers are read as stored, without a
    model instance or a decoded report per row (:func:`_report_rows`).
    """

    def rows() -> Iterator[tuple[Any, ...]]:
        mark, submissions = release.released_bounds(survey_id=survey.pk)
        revisions = spec_revisions(survey)
        texts = dict(survey.questions.values_list("id", "text"))
        for question_id, by_revision in revisions.items():
            for revision, spec in sorted(by_revision.items()):
                yield (
                    "spec",
                    question_id,
                    revision,
                    "",
                    "",
                    texts.get(question_id),
                    compact_json(spec),
                    False,
                )
        yield from _report_rows(survey, mark, include_test, revisions)
        yield from _answer_rows(survey, submissions, include_test)
        for submission_id, question_id, code, test in _missing_codes(
            survey, submissions, include_test
        ):
            yield ("missing", question_id, "", submission_id, "", "", code, test)
        if survey_records_language(survey):
            for submission_id, language, test in _languages(
                survey, submissions, include_test
            ):
                yield ("language", "", "", submission_id, "", "", language, test)

    if include_test:
        marked = ((*row[:-1], "true" if row[-1] else "false") for row in rows())
        return csv_lines([*REPORT_COLUMNS, "is_test"], marked)
    return csv_lines(REPORT_COLUMNS, (row[:-1] for row in rows()))


def reports_json(survey: Survey) -> Iterator[str]:
    """One JSON document, written piece by piece so memory stays flat."""
    mark, submissions = release.released_bounds(survey_id=survey.pk)
    head = {
        "format": "deniable-reports/1",
        "survey_id": survey.pk,
        "title": survey.title,
        "generated_at": timezone.now().isoformat(),
        "note": (
            "Reports were randomized on respondents' devices; re-estimate with "
            "ldp.build(spec).aggregate(reports) per question and spec revision."
        ),
        "questions": questions_document(survey),
        "missing_codes": missing_codes_document(),
    }
    opening = json.dumps(head, ensure_ascii=False)[:-1]
    yield opening + ', "reports": ['
    first = True
    for row in _reports(survey, mark):
        yield ("" if first else ",\n") + compact_json(report_document(row))
        first = False
    yield '], "plain_answers": ['
    first = True
    for submission_id, question_id, value, _, other in _plain_answers(
        survey, submissions
    ):
        item = {
            "submission_id": submission_id,
            "question_id": question_id,
            "value": value,
        }
        if other:  # typed beside "Other, please specify", as typed
            item["other_text"] = other
        yield ("" if first else ",\n") + compact_json(item)
        first = False
    yield '], "missing": ['
    first = True
    for submission_id, question_id, code, _ in _missing_codes(survey, submissions):
        item = {
            "submission_id": submission_id,
            "question_id": question_id,
            "code": code,
        }
        yield ("" if first else ",\n") + compact_json(item)
        first = False
    if survey_records_language(survey):
        # An unprotected field the researcher declared (``record_language``).
        yield '], "languages": ['
        first = True
        for submission_id, language, _ in _languages(survey, submissions):
            item = {"submission_id": submission_id, "language": language}
            yield ("" if first else ",\n") + compact_json(item)
            first = False
    yield "]}\n"


def reports_page(survey: Survey, *, after: str, limit: int) -> list[dict[str, Any]]:
    """One page of reports with public_id > ``after`` (keyset pagination, for the
    API; "" starts at the first).  Each report carries its submission's
    ``language`` only if the survey records it (an unprotected field)."""
    mark = release.released_watermark(survey_id=survey.pk)
    documents = [
        report_document(row) for row in _reports(survey, mark, after=after, limit=limit)
    ]
    if documents and survey_records_language(survey):
        languages = submission_languages(
            survey, {doc["submission_id"] for doc in documents}
        )
        for doc in documents:
            doc["language"] = languages.get(doc["submission_id"], "")
    return documents
