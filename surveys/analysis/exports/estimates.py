"""Exports: estimates (CSV/JSON), raw randomized reports (streamed), design card.

The raw reports are already private (randomized on the respondent's device),
and each export carries every spec the reports were made under, so anyone can
re-estimate with ``ldp.build(spec).aggregate(reports)``.  Text cells that a
spreadsheet would run as a formula are neutralised.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.utils import timezone

import ldp
from ldp.spec.ceilings import EPSILON_CEILING_QUESTION, EPSILON_CEILING_SURVEY
from surveys.analysis import wording
from surveys.analysis.results.objects import QuestionResult, SurveyResults
from surveys.authoring import kinds
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.collection import report_codec
from surveys.collection.models import PlainAnswer, Report, Submission
from surveys.collection.questions import answer_choices
from surveys.collection.selectors import submission_languages, survey_records_language

CHUNK_SIZE = 2000
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
METHOD = (
    "Unbiased estimates by inverting each question's randomization channel "
    "(frequency oracles: (C/n − q*)/(p* − q*)); consistent estimates are the "
    "Euclidean projection onto the simplex (Norm-Sub) or, where the researcher "
    "chose it, the maximum-likelihood distribution through the randomization "
    "(EM); the consistent_method column names the one used. Scales and numbers also "
    "have a binned distribution: the constrained maximum-likelihood level "
    "distribution (EM) summed into bins, with percentile parametric-bootstrap "
    "intervals, and the median with its bootstrap interval."
)
# What a per-answer row is, in the CSV's "row_type" column.
RAW_LEVEL = "raw per-level inversion (unbiased; can be negative; not a distribution)"
SHARE = "share"
BIN = "bin share (constrained maximum likelihood, bootstrap interval)"


# --- CSV ----------------------------------------------------------------------------
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
    """Lines of a CSV document, each cell neutralised; lazy."""
    writer = csv.writer(_Echo())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow([neutralise(cell) for cell in row])


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- estimates ----------------------------------------------------------------------
ESTIMATE_COLUMNS = [
    "survey_id",
    "question_id",
    "position",
    "question",
    "kind",
    "mechanism",
    "mechanism_label",
    "epsilon",
    "spec_revision",
    "n",
    "row_type",
    "answer",
    "estimate",
    "standard_error",
    "ci_low",
    "ci_high",
    "interval_method",
    "consistent",
    "consistent_method",
    "mean",
    "mean_standard_error",
    "mean_ci_low",
    "mean_ci_high",
    "median",
    "median_ci_low",
    "median_ci_high",
    "margin_of_error",
    "target_margin",
    "responses_needed",
    "influence_factor",
    "warnings",
]


def _question_rows(survey_id: int, q: QuestionResult) -> Iterator[list[Any]]:
    mean_interval = q.mean_interval
    d = q.distribution
    row_type = RAW_LEVEL if kinds.facts(q.kind).in_units else SHARE
    rows: list[tuple[str, str, Any, Any, Any, Any, str]] = []
    if q.estimate:
        consistent = q.consistent or [None] * len(q.estimate)
        rows.extend(
            (row_type, label, est, se, interval, fixed, q.interval_method)
            for label, est, se, interval, fixed in zip(
                q.labels,
                q.estimate,
                q.standard_error,
                q.intervals,
                consistent,
                strict=True,
            )
        )
    if d is not None:
        rows.extend(
            (BIN, label, share, "", interval, None, "bootstrap percentile")
            for label, share, interval in zip(
                d.labels, d.shares, d.intervals, strict=True
            )
        )
    if not rows:
        # No per-answer shares (no reports yet, or a mean-only mechanism such as
        # Duchi's): one row still carries n, ε, the mean and the warnings.
        rows.append(("", "", "", "", None, None, q.interval_method))
    for kind, label, est, se, interval, fixed, method in rows:
        yield [
            survey_id,
            q.question_id,
            q.position,
            q.text,
            q.kind,
            q.mechanism,
            q.mechanism_label,
            q.epsilon,
            q.spec_revision,
            q.n,
            kind,
            label,
            est,
            se,
            "" if interval is None else interval.low,
            "" if interval is None else interval.high,
            method,
            "" if fixed is None else fixed,
            "" if fixed is None else q.consistent_method or "",
            "" if q.mean is None else q.mean,
            "" if q.mean_standard_error is None else q.mean_standard_error,
            "" if mean_interval is None else mean_interval.low,
            "" if mean_interval is None else mean_interval.high,
            "" if d is None else d.median,
            "" if d is None else d.median_interval.low,
            "" if d is None else d.median_interval.high,
            q.margin_of_error,
            q.target_margin,
            q.responses_needed,
            q.influence_factor,
            " | ".join(wording.english(w) for w in q.warnings),
        ]


def estimates_csv(results: SurveyResults) -> Iterator[str]:
    rows = (
        row for q in results.questions for row in _question_rows(results.survey_id, q)
    )
    return csv_lines(ESTIMATE_COLUMNS, rows)


def _question_document(q: QuestionResult) -> dict[str, Any]:
    """A question's fields, with what its per-answer shares are ("estimate_kind")."""
    document = dataclasses.asdict(q)
    # In English whatever the reader's language, as exports always carried them
    # (the design is already named in ``mechanism_label``).
    document["warnings"] = [wording.english(w) for w in q.warnings]
    document.pop("design")
    document["estimate_kind"] = RAW_LEVEL if kinds.facts(q.kind).in_units else SHARE
    return document


def estimates_document(results: SurveyResults) -> dict[str, Any]:
    """The estimates as one JSON-able dict (also the API's survey resource)."""
    plain = {p.question_id: dataclasses.asdict(p) for p in results.plain}
    return {
        "survey_id": results.survey_id,
        "title": results.title,
        "total_epsilon": results.total_epsilon,
        "refreshed_at": (
            results.refreshed_at.isoformat() if results.refreshed_at else None
        ),
        "pending_reports": results.pending_reports,
        "computed_at": (
            results.computed_at.isoformat() if results.computed_at else None
        ),
        "responses": results.responses,
        "pending_responses": results.pending_responses,
        "snapshot_version": results.version,
        "confidence_level": 0.95,
        "method": METHOD,
        "questions": [_question_document(q) for q in results.questions],
        "not_protected": [
            plain.get(pk, {"question_id": pk, "text": text})
            for pk, text in results.not_protected
        ],
    }


# --- questions, specs and the design card -----------------------------------------
def question_labels(question: Question) -> list[str]:
    by_value = dict(answer_choices(question))
    return [by_value[v] for v in sorted(by_value)]


def spec_revisions(survey: Survey) -> dict[int, dict[int, dict]]:
    """question id → {revision: compiled spec}, including the current one."""
    found: dict[int, dict[int, dict]] = {}
    for row in SpecRevision.objects.filter(question__survey=survey).order_by(
        "question_id", "revision"
    ):
        found.setdefault(row.question_id, {})[row.revision] = row.spec
    for question in survey.questions.filter(is_private=True):
        if question.spec:
            found.setdefault(question.pk, {}).setdefault(
                question.spec_revision, question.spec
            )
    return found


def question_document(question: Question, revisions: dict[int, dict]) -> dict:
    document: dict[str, Any] = {
        "question_id": question.pk,
        "position": question.position,
        "text": question.text,
        "kind": question.kind,
        "labels": question_labels(question),
        "is_private": question.is_private,
    }
    if kinds.facts(question.kind).grid:
        document["range"] = {
            "low": str(question.numeric_low),
            "high": str(question.numeric_high),
            "step": str(question.numeric_step),
        }
    mechanism = question.compiled_mechanism()
    if mechanism is not None:
        name = question.spec.get("mechanism", "")
        document.update(
            mechanism=name,
            mechanism_label=mechanism_label(name),
            epsilon=mechanism.epsilon,
            epsilon_display=mechanism.epsilon_display,
            spec_revision=question.spec_revision,
            spec=question.spec,
            spec_revisions={str(r): s for r, s in sorted(revisions.items())},
        )
    return document


def questions_document(survey: Survey) -> list[dict]:
    revisions = spec_revisions(survey)
    return [
        question_document(q, revisions.get(q.pk, {})) for q in survey.questions.all()
    ]


def _randomizer_integrity() -> str | None:
    try:
        from surveys.collection.assets import randomizer_script
    except ImportError:  # the collection app ships it; be explicit if it moves
        return None
    try:
        return randomizer_script().integrity
    except OSError:
        return None


def _page_script_integrity() -> str | None:
    """SRI of respond.js, the one script respondent pages load.

    See docs/testing.md, section 5.
    """
    try:
        from surveys.collection.assets import respond_script

        return respond_script().integrity
    except (ImportError, OSError):
        return None


def _wording_integrity() -> str | None:
    """SRI of wording.js, the module that words protection on the device."""
    try:
        from surveys.collection.assets import wording_script

        return wording_script().integrity
    except (ImportError, OSError):
        return None


def design_card(survey: Survey) -> dict[str, Any]:
    """Everything that decides how answers were randomized, as one JSON document."""
    questions = questions_document(survey)
    epsilons = [q["epsilon"] for q in questions if "epsilon" in q]
    return {
        "format": "deniable-design-card/1",
        "generated_at": timezone.now().isoformat(),
        "survey": {
            "id": survey.pk,
            "title": survey.title,
            "description": survey.description,
            "status": survey.status,
            "revision": survey.revision,
            "published_at": (
                survey.published_at.isoformat() if survey.published_at else None
            ),
            "epsilon_budget": survey.epsilon_budget,
            "total_epsilon": sum(epsilons),
            "total_epsilon_method": "sequential composition (sum of delivered ε)",
        },
        "spec_version": ldp.SPEC_VERSION,
        "randomizer_sha384": _randomizer_integrity(),
        "wording_sha384": _wording_integrity(),
        "page_script_sha384": _page_script_integrity(),
        # What every respondent's device refuses to exceed (ldp/js/randomizer.js).
        "device_epsilon_ceilings": {
            "question": EPSILON_CEILING_QUESTION,
            "survey": EPSILON_CEILING_SURVEY,
        },
        "questions": questions,
    }


# --- raw reports (streamed) ---------------------------------------------------------
def _reports(
    survey: Survey,
    after: str = "",
    limit: int | None = None,
    include_test: bool = False,
    revisions: dict[int, dict[int, dict]] | None = None,
) -> Iterator[tuple[Any, ...]]:
    """Report rows ``(public_id, submission public_id, received_at, question id,
    spec revision, report, is_test)``, the report decoded from its stored
    columns into the JSON the device sent (``report_codec``)."""
    # Ordered by the random public identifier, never by id: the order of an
    # export says nothing about the order in which reports arrived.
    manager = Report.all_objects if include_test else Report.objects
    rows = (
        manager.filter(survey=survey, public_id__gt=after)
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


def _plain_answers(survey: Survey, include_test: bool = False):
    rows = PlainAnswer.objects.filter(question__survey=survey)
    if not include_test:
        rows = rows.filter(submission__is_test=False)
    return (
        rows.order_by("submission__public_id", "question_id")
        .values_list(
            "submission__public_id", "question_id", "value", "submission__is_test"
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _languages(survey: Survey, include_test: bool = False):
    """(submission public id, language, is_test) of every submission, by public
    id: only called for a survey that records languages."""
    rows = Submission.objects.filter(survey=survey)
    if not include_test:
        rows = rows.filter(is_test=False)
    return (
        rows.order_by("public_id")
        .values_list("public_id", "language", "is_test")
        .iterator(CHUNK_SIZE)
    )


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
    then "answer" rows for questions marked not protected, then, only if the
    survey records each response's language (an unprotected field the
    researcher declared), a "language" row per submission (value = its code).

    ``include_test``: the owner's test responses too, each row marked in an
    extra ``is_test`` column (true/false); they are never in any estimate.
    """
    marked = (
        (lambda row, test: [*row, "true" if test else "false"])
        if (include_test)
        else (lambda row, test: row)
    )

    def rows() -> Iterator[list[Any]]:
        revisions = spec_revisions(survey)
        texts = dict(survey.questions.values_list("id", "text"))
        for question_id, by_revision in revisions.items():
            for revision, spec in sorted(by_revision.items()):
                yield marked(
                    [
                        "spec",
                        question_id,
                        revision,
                        "",
                        "",
                        texts.get(question_id),
                        _compact(spec),
                    ],
                    False,
                )
        for row in _reports(survey, include_test=include_test, revisions=revisions):
            doc = report_document(row)
            yield marked(
                [
                    "report",
                    doc["question_id"],
                    doc["spec_revision"],
                    doc["submission_id"],
                    doc["received_at"],
                    "",
                    _compact(doc["report"]),
                ],
                row[-1],
            )
        for submission_id, question_id, value, test in _plain_answers(
            survey, include_test
        ):
            yield marked(
                ["answer", question_id, "", submission_id, "", "", _compact(value)],
                test,
            )
        if survey_records_language(survey):
            for submission_id, language, test in _languages(survey, include_test):
                yield marked(
                    ["language", "", "", submission_id, "", "", language], test
                )

    columns = [*REPORT_COLUMNS, "is_test"] if include_test else REPORT_COLUMNS
    return csv_lines(columns, rows())


def reports_json(survey: Survey) -> Iterator[str]:
    """One JSON document, written piece by piece so memory stays flat."""
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
    }
    opening = json.dumps(head, ensure_ascii=False)[:-1]
    yield opening + ', "reports": ['
    first = True
    for row in _reports(survey):
        yield ("" if first else ",\n") + _compact(report_document(row))
        first = False
    yield '], "plain_answers": ['
    first = True
    for submission_id, question_id, value, _ in _plain_answers(survey):
        item = {
            "submission_id": submission_id,
            "question_id": question_id,
            "value": value,
        }
        yield ("" if first else ",\n") + _compact(item)
        first = False
    if survey_records_language(survey):
        # An unprotected field the researcher declared (``record_language``).
        yield '], "languages": ['
        first = True
        for submission_id, language, _ in _languages(survey):
            item = {"submission_id": submission_id, "language": language}
            yield ("" if first else ",\n") + _compact(item)
            first = False
    yield "]}\n"


def reports_page(survey: Survey, *, after: str, limit: int) -> list[dict[str, Any]]:
    """One page of reports with public_id > ``after`` (keyset pagination, for the
    API; "" starts at the first).  Each report carries its submission's
    ``language`` only if the survey records it (an unprotected field)."""
    documents = [
        report_document(row) for row in _reports(survey, after=after, limit=limit)
    ]
    if documents and survey_records_language(survey):
        languages = submission_languages(
            survey, {doc["submission_id"] for doc in documents}
        )
        for doc in documents:
            doc["language"] = languages.get(doc["submission_id"], "")
    return documents
