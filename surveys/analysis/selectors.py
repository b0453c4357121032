"""Reads for analysis: survey results from tallies, and what is still pending."""

from __future__ import annotations

import ldp
from ldp.accounting import sequential_composition
from surveys.analysis.estimates import question_result
from surveys.analysis.models import Tally, TallyWatermark
from surveys.analysis.results import SurveyResults
from surveys.authoring.models import Survey
from surveys.collection.models import Report


def survey_watermark(*, survey_id: int) -> int:
    """The highest report id folded into the survey's tallies (0: none)."""
    mark = TallyWatermark.objects.filter(survey_id=survey_id).first()
    return mark.last_report_id if mark else 0


def pending_report_count(*, survey_id: int) -> int:
    """Reports of the survey stored past its watermark."""
    return Report.objects.filter(
        question__survey_id=survey_id, id__gt=survey_watermark(survey_id=survey_id)
    ).count()


def surveys_with_pending_reports() -> list[int]:
    """Ids of surveys with reports past their watermark, for reconciliation."""
    marks = dict(TallyWatermark.objects.values_list("survey_id", "last_report_id"))
    survey_ids = (
        Survey.objects.filter(questions__is_private=True, questions__spec__isnull=False)
        .values_list("pk", flat=True)
        .distinct()
    )
    return sorted(
        survey_id
        for survey_id in survey_ids
        if Report.objects.filter(
            question__survey_id=survey_id, id__gt=marks.get(survey_id, 0)
        ).exists()
    )


def survey_tallies(*, survey_id: int) -> dict[tuple[int, int], ldp.SupportCounts]:
    """Every tally of the survey as ldp aggregates, by (question, revision)."""
    return {
        (t.question_id, t.spec_revision): ldp.SupportCounts.from_dict(t.stat)
        for t in Tally.objects.filter(question__survey_id=survey_id)
    }


def survey_results(*, survey: Survey, target_margin: float = 0.05) -> SurveyResults:
    """Debiased estimates of every private question, from the tallies only."""
    if not 0 < target_margin < 1:
        raise ValueError(f"target_margin is {target_margin!r}; allowed: 0 < m < 1")
    tallies = survey_tallies(survey_id=survey.pk)
    mark = TallyWatermark.objects.filter(survey_id=survey.pk).first()
    results, plain, epsilons = [], [], []
    for question in survey.questions.order_by("position", "id"):
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
            )
        )
    return SurveyResults(
        survey_id=survey.pk,
        title=survey.title,
        total_epsilon=sequential_composition(epsilons),
        questions=results,
        not_protected=plain,
        refreshed_at=mark.refreshed_at if mark else None,
        pending_reports=pending_report_count(survey_id=survey.pk),
    )
