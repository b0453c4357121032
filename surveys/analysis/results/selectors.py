"""Reads for analysis: results from tallies or from the latest snapshot, and lag."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

import ldp
from ldp.accounting import sequential_composition
from surveys.analysis.models import (
    QuestionBins,
    ResultSnapshot,
    ResultsSettings,
    Tally,
    TallyWatermark,
)
from surveys.analysis.results import answer_counts, pending
from surveys.analysis.results.estimates import question_result
from surveys.analysis.results.objects import (
    ItemCounts,
    PlainSummary,
    SurveyResults,
    document_readable,
    document_shown,
    results_from_document,
)
from surveys.analysis.results.release import snapshot_batch_ready
from surveys.authoring import kinds
from surveys.authoring.models import Question, Survey
from surveys.collection.models import Report, Submission
from surveys.collection.questions import answer_choices


def survey_watermark(*, survey_id: int) -> int:
    """The highest report id folded into the survey's tallies (0: none)."""
    mark = TallyWatermark.objects.filter(survey_id=survey_id).first()
    return mark.last_report_id if mark else 0


def pending_report_count(*, survey_id: int) -> int:
    """Reports of the survey stored past its watermark."""
    return Report.objects.filter(
        survey_id=survey_id, id__gt=survey_watermark(survey_id=survey_id)
    ).count()


def _surveys_with_private_questions() -> list[int]:
    return list(
        Survey.objects.filter(questions__is_private=True, questions__spec__isnull=False)
        .values_list("pk", flat=True)
        .distinct()
    )


def surveys_with_pending_reports() -> list[int]:
    """Ids of surveys with reports or counted submissions (with no protected
    report too) past their watermark, for reconciliation."""
    marks = {
        survey_id: (report, submission)
        for survey_id, report, submission in TallyWatermark.objects.values_list(
            "survey_id", "last_report_id", "last_submission_id"
        )
    }
    with_reports = set(_surveys_with_private_questions())
    return sorted(
        survey_id
        for survey_id in Survey.objects.values_list("pk", flat=True)
        if (
            survey_id in with_reports
            and Report.objects.filter(
                survey_id=survey_id, id__gt=marks.get(survey_id, (0, 0))[0]
            ).exists()
        )
        or Submission.objects.filter(
            survey_id=survey_id,
            pk__gt=marks.get(survey_id, (0, 0))[1],
            is_test=False,
        ).exists()
    )


def survey_tallies(*, survey_id: int) -> dict[tuple[int, int], ldp.SupportCounts]:
    """Every tally of the survey as ldp aggregates, by (question, revision)."""
    return {
        (t.question_id, t.spec_revision): ldp.SupportCounts.from_dict(t.stat)
        for t in Tally.objects.filter(question__survey_id=survey_id)
    }


def question_cuts(question_ids: list[int]) -> dict[int, list[float]]:
    """Researchers' cut points (``QuestionBins``) by question id."""
    return dict(
        QuestionBins.objects.filter(question_id__in=question_ids).values_list(
            "question_id", "cuts"
        )
    )


def consistent_method(*, survey_id: int) -> str:
    """The survey's consistent-estimate method (``ResultsSettings``; default:
    the projection onto the simplex, "norm-sub")."""
    stored = (
        ResultsSettings.objects.filter(survey_id=survey_id)
        .values_list("consistent_method", flat=True)
        .first()
    )
    return stored or ResultsSettings.Consistent.PROJECTION.value


def survey_definition(questions: list[Question]) -> str:
    """A fingerprint of what results are computed under: texts, order, specs,
    the researchers' bins and the survey's consistent-estimate method.

    A snapshot computed under another definition is stale (a question was
    edited, added or removed, its bins changed, or the consistent method),
    whatever its watermark.
    """
    method = (
        consistent_method(survey_id=questions[0].survey_id)
        if questions
        else ResultsSettings.Consistent.PROJECTION.value
    )
    return _definition(
        ((q.pk, q.position, q.text, q.is_private, q.spec_revision) for q in questions),
        question_cuts([q.pk for q in questions]),
        method,
    )


def current_definition(*, survey_id: int) -> str:
    """``survey_definition`` of the survey's questions, reading only the five
    columns it fingerprints (not the specs) and, in the same query, the
    survey's consistent method."""
    rows = list(
        Question.objects.filter(survey_id=survey_id)
        .order_by("position", "id")
        .values_list(
            "pk",
            "position",
            "text",
            "is_private",
            "spec_revision",
            "survey__results_settings__consistent_method",
        )
    )
    cuts = dict(
        QuestionBins.objects.filter(question__survey_id=survey_id).values_list(
            "question_id", "cuts"
        )
    )
    method = (rows[0][5] if rows else None) or ResultsSettings.Consistent.PROJECTION
    return _definition((row[:5] for row in rows), cuts, method)


def _definition(rows, cuts: dict[int, list[float]], method: str) -> str:
    digest = hashlib.sha256()
    for pk, position, text, is_private, revision in rows:
        digest.update(
            json.dumps(
                [pk, position, text, is_private, revision], ensure_ascii=False
            ).encode()
        )
    # Without bins the fingerprint is as before (no snapshot goes stale).
    for pk in sorted(cuts):
        digest.update(json.dumps(["bins", pk, cuts[pk]]).encode())
    # Likewise with the default consistent method.
    if method != ResultsSettings.Consistent.PROJECTION:
        digest.update(json.dumps(["consistent", method]).encode())
    return digest.hexdigest()


def results_from_tallies(
    *,
    survey: Survey,
    questions: list[Question],
    tallies: dict[tuple[int, int], ldp.SupportCounts],
    refreshed_at: datetime | None,
    pending_reports: int = 0,
    target_margin: float = 0.05,
    skipped: dict[int, int] | None = None,
    plain_answers: dict[int, list[tuple[Any, int]]] | None = None,
    skip_reasons: dict[int, dict[str, int]] | None = None,
    responses: int = 0,
) -> SurveyResults:
    """Debiased estimates of every private question from the given tallies.

    ``skipped``: skips per question id (``answer_counts``); every optional
    question is listed in the results' item non-response, with 0 if absent.
    ``plain_answers``: (value, count) pairs per unprotected question
    (``answer_counts``), summarised as they were sent.
    ``skip_reasons`` (skips per question id by reason) and ``responses`` (the
    submissions the tallies cover) give every question's ``item_counts``.
    """
    if not 0 < target_margin < 1:
        raise ValueError(f"target_margin is {target_margin!r}; allowed: 0 < m < 1")
    results, plain, epsilons = [], [], []
    cuts = question_cuts([q.pk for q in questions])
    method = consistent_method(survey_id=survey.pk)
    for question in questions:
        if not question.is_private:
            plain.append((question.pk, question.text))
            continue
        mechanism = question.compiled_mechanism()
        if mechanism is None:
            continue  # not compiled yet: nothing can have been reported
        epsilons.append(mechanism.epsilon)
        older = sum(
            stat.n
            for (question_id, revision), stat in tallies.items()
            if question_id == question.pk and revision != question.spec_revision
        )
        results.append(
            question_result(
                question,
                mechanism,
                tallies.get((question.pk, question.spec_revision)),
                target_margin=target_margin,
                older_reports=older,
                cuts=cuts.get(question.pk),
                consistent_method=method,
            )
        )
    summaries = [
        plain_summary(q, (plain_answers or {}).get(q.pk, []))
        for q in questions
        if not q.is_private
    ]
    answered = {p.question_id: p.n for p in summaries}
    for (question_id, _), stat in tallies.items():
        answered[question_id] = answered.get(question_id, 0) + stat.n
    return SurveyResults(
        survey_id=survey.pk,
        title=survey.title,
        total_epsilon=sequential_composition(epsilons),
        questions=results,
        not_protected=plain,
        refreshed_at=refreshed_at,
        pending_reports=pending_reports,
        skipped=[(q.pk, (skipped or {}).get(q.pk, 0)) for q in questions if q.optional],
        plain=summaries,
        item_counts=[
            item_counts(
                q.pk, answered.get(q.pk, 0), (skip_reasons or {}).get(q.pk), responses
            )
            for q in questions
        ],
    )


def item_counts(
    question_id: int, answered: int, reasons: dict[str, int] | None, responses: int
) -> ItemCounts:
    """One question's answered / not shown / left blank / declined counts
    among ``responses`` covered submissions: a hidden question stores nothing,
    so "not shown" is what the other four leave (never below 0)."""
    reasons = reasons or {}
    blank, declined = reasons.get("blank", 0), reasons.get("declined", 0)
    unknown = reasons.get("unknown", 0)
    return ItemCounts(
        question_id=question_id,
        answered=answered,
        not_shown=max(0, responses - answered - blank - declined - unknown),
        left_blank=blank,
        declined=declined,
        unknown=unknown,
    )


def plain_summary(question: Question, answers: list[tuple[Any, int]]) -> PlainSummary:
    """Counts per option (choice kinds) or mean, median and range (numbers)."""
    n = sum(count for _, count in answers)
    if kinds.facts(question.kind).grid:
        pairs = sorted((float(value), count) for value, count in answers)
        if not pairs:
            return PlainSummary(question.pk, question.text, question.kind, 0, [], [])
        mean = sum(value * count for value, count in pairs) / n

        def kth(k: int) -> float:  # the k-th (from 0) of the sorted answers
            seen = 0
            for value, count in pairs:
                seen += count
                if seen > k:
                    return value
            return pairs[-1][0]

        median = (kth((n - 1) // 2) + kth(n // 2)) / 2
        return PlainSummary(
            question.pk,
            question.text,
            question.kind,
            n,
            [],
            [],
            mean=mean,
            median=median,
            lowest=pairs[0][0],
            highest=pairs[-1][0],
        )
    if kinds.facts(question.kind).free_text:
        # Typed words are tallied as "answered" only; they are read in the
        # per-respondent exports.
        labels = ["Answered (the typed words are in the exports)"]
        return PlainSummary(question.pk, question.text, question.kind, n, labels, [n])
    choices = answer_choices(question)
    position = {value: index for index, (value, _) in enumerate(choices)}
    counts = [0] * len(choices)
    for value, count in answers:
        for chosen in value if isinstance(value, list) else [value]:
            if chosen in position:
                counts[position[chosen]] += count
    return PlainSummary(
        question.pk,
        question.text,
        question.kind,
        n,
        [label for _, label in choices],
        counts,
    )


def survey_questions(survey: Survey) -> list[Question]:
    """The survey's questions in the order results list them."""
    return list(survey.questions.order_by("position", "id"))


def survey_results(*, survey: Survey, target_margin: float = 0.05) -> SurveyResults:
    """Debiased estimates of every private question, computed from the tallies now.

    The from-scratch computation (what a snapshot stores); pages, exports and
    the API read :func:`latest_results` instead.
    """
    mark = TallyWatermark.objects.filter(survey_id=survey.pk).first()
    answers = answer_counts.stored_counts(survey_id=survey.pk)
    return results_from_tallies(
        survey=survey,
        questions=survey_questions(survey),
        tallies=survey_tallies(survey_id=survey.pk),
        refreshed_at=mark.refreshed_at if mark else None,
        pending_reports=pending_report_count(survey_id=survey.pk),
        target_margin=target_margin,
        skipped=answers.skips(),
        plain_answers=answers.by_question(),
        skip_reasons=answers.skip_reasons(),
        responses=mark.responses if mark else 0,
    )


def _reports_after(survey_id: int, watermark: int) -> QuerySet[Report]:
    """The survey's reports past ``watermark``, in the survey's partition and
    found through its questions (the (question, id) index): never a scan of
    other surveys' later reports."""
    questions = Question.objects.filter(survey_id=survey_id).values("id")
    return Report.objects.filter(
        survey_id=survey_id, question_id__in=questions, id__gt=watermark
    )


def responses_up_to(*, survey_id: int, last_submission_id: int) -> int:
    """The survey's counted submissions with ``id <= last_submission_id``
    (with a protected report or none): the n of tallies or a release with
    that bound.  One range of the (survey, id) index."""
    return Submission.objects.filter(
        survey_id=survey_id, pk__lte=last_submission_id, is_test=False
    ).count()


def responses_between(*, survey_id: int, after: int, up_to: int | None) -> int:
    """Submissions with a report of the survey in ``after < id <= up_to``."""
    reports = _reports_after(survey_id, after)
    if up_to is not None:
        reports = reports.filter(id__lte=up_to)
    return reports.values("submission_id").distinct().count()


@dataclass(frozen=True)
class SnapshotState:
    """What a reader needs to know about a survey's latest snapshot."""

    results: SurveyResults | None  # None: no snapshot yet
    stale: bool  # the tallies or the questions moved past it: a newer one is due


def latest_snapshot(*, survey_id: int) -> ResultSnapshot | None:
    """The survey's stored snapshot, if any (only the latest is kept)."""
    return ResultSnapshot.objects.filter(survey_id=survey_id).first()


def latest_results(*, survey: Survey) -> SnapshotState:
    """The survey's results as its latest snapshot holds them, with what
    arrived since (capped counts), and whether a newer snapshot is due.

    A fixed number of queries whatever the number of reports or the cost of
    the analysis: the snapshot, the two that fingerprint the current
    questions and bins (:func:`current_definition`), the tally watermark and
    the capped counts of what arrived since (``pending``).  Stale
    (a computation is due) when the questions changed, or when the tallies
    hold a batch the release rule lets out (:func:`_batch_due`).
    """
    snapshot = latest_snapshot(survey_id=survey.pk)
    if snapshot is None or not document_shown(snapshot.document):
        return SnapshotState(None, stale=True)
    reports, _ = pending.pending_after(
        survey_id=survey.pk, watermark=snapshot.watermark
    )
    submissions = pending.pending_submissions(
        survey_id=survey.pk, after=snapshot.last_submission_id
    )
    results = replace(
        results_from_document(snapshot.document, pending_reports=reports),
        computed_at=snapshot.computed_at,
        responses=snapshot.responses,
        pending_responses=submissions,
        version=snapshot.version,
    )
    stale = (
        snapshot.definition != current_definition(survey_id=survey.pk)
        or _batch_due(snapshot)
        # An earlier release's format: shown, and recomputed in this one's.
        or not document_readable(snapshot.document)
    )
    return SnapshotState(results, stale=stale)


def _batch_due(snapshot: ResultSnapshot) -> bool:
    """Whether the tallies moved past ``snapshot`` by a batch the release rule
    lets out now (``release``): while a batch is held back, no computation is
    due, so a page view or a live poll queues nothing."""
    mark = (
        TallyWatermark.objects.filter(survey_id=snapshot.survey_id)
        .values_list("last_report_id", "last_submission_id", "responses")
        .first()
    )
    # By report or by submission (one with no protected report moves only
    # the latter).
    if mark is None or mark[:2] <= (snapshot.watermark, snapshot.last_submission_id):
        return False
    return snapshot_batch_ready(
        # At least one: a withdrawal may have taken one out of the count.
        new_responses=max(1, mark[2] - snapshot.responses),
    )


def snapshots_behind() -> list[int]:
    """Ids of surveys whose snapshot is missing or older than their tallies
    (by report or by submission: one with no protected report moves only
    the latter)."""
    snapshots = {
        survey_id: (watermark, submission)
        for survey_id, watermark, submission in ResultSnapshot.objects.values_list(
            "survey_id", "watermark", "last_submission_id"
        )
    }
    return sorted(
        survey_id
        for survey_id, mark, submission in TallyWatermark.objects.values_list(
            "survey_id", "last_report_id", "last_submission_id"
        )
        if snapshots.get(survey_id, (-1, -1)) < (mark, submission)
    )


def lag() -> dict[str, int]:
    """How far tallies and snapshots are behind the stored reports, in reports.

    ``reports_untallied``: reports past their survey's tally watermark;
    ``reports_not_in_results``: reports past their survey's snapshot.
    """
    marks = dict(TallyWatermark.objects.values_list("survey_id", "last_report_id"))
    snapshots = dict(ResultSnapshot.objects.values_list("survey_id", "watermark"))
    untallied = not_in_results = 0
    for survey_id in _surveys_with_private_questions():
        untallied += _reports_after(survey_id, marks.get(survey_id, 0)).count()
        not_in_results += _reports_after(survey_id, snapshots.get(survey_id, 0)).count()
    return {
        "reports_untallied": untallied,
        "reports_not_in_results": not_in_results,
    }
