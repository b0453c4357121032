"""Reads for the survey builder; every survey lookup is filtered by its owner."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.db.models import Count, F, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext

from ldp.spec import strength
from ldp.spec.ceilings import above_question_ceiling, above_survey_ceiling
from surveys.authoring import access, display_logic, mechanisms, previews
from surveys.authoring.designs import ForcedDesign
from surveys.authoring.models import Question, Survey


def surveys_for_owner(*, user) -> QuerySet[Survey]:
    """The surveys the user owns or may read (a co-researcher's), with their
    response counts (all stored, and released: what researchers are shown,
    ``analysis.results.release``) and question counts."""
    return access.accessible_surveys(user=user).annotate(
        response_count=Count(
            "submissions", filter=Q(submissions__is_test=False), distinct=True
        ),
        released_count=Count(
            "submissions",
            filter=Q(
                submissions__is_test=False,
                submissions__pk__lte=F("result_snapshot__last_submission_id"),
            ),
            distinct=True,
        ),
        question_count=Count("questions", distinct=True),
    )


def survey_get_for(*, user, pk: int, need: str) -> Survey:
    """Survey ``pk`` if the user has ``need`` on it (``access``); 404 for anyone
    else (no hint it exists)."""
    return access.survey_get_for(user=user, pk=pk, need=need)


def question_get_for(*, user, survey_pk: int, pk: int) -> Question:
    """Question ``pk`` of survey ``survey_pk`` if the user may edit it (owner or
    editor); 404 otherwise."""
    editable = access.accessible_surveys(user=user, need=access.EDIT)
    return get_object_or_404(
        Question.objects.select_related("survey").filter(
            survey__in=editable, survey_id=survey_pk
        ),
        pk=pk,
    )


# Submissions are collection's model; authoring reads them only through the
# reverse relation Survey.submissions and never imports collection.
def survey_has_responses(*, survey: Survey) -> bool:
    return survey.submissions.exists()


def survey_response_count(*, survey: Survey) -> int:
    """Responses that count (test responses left out)."""
    return survey.submissions.filter(is_test=False).count()


def survey_released_count(*, survey: Survey) -> int:
    """Responses released to researchers (``analysis.results.release``): the
    n every page shows: those at or below the bound of the survey's results
    snapshot (``Survey.result_snapshot``, analysis's reverse relation)."""
    return survey.submissions.filter(
        is_test=False, pk__lte=F("survey__result_snapshot__last_submission_id")
    ).count()


def survey_test_response_count(*, survey: Survey) -> int:
    """Test responses the owner sent in test mode."""
    return survey.submissions.filter(is_test=True).count()


def question_privacy_config(question: Question) -> mechanisms.PrivacyConfig:
    """The stored question's privacy configuration."""
    return mechanisms.PrivacyConfig(
        kind=question.kind,
        is_private=question.is_private,
        options=tuple(question.options or ()),
        epsilon=(
            question.requested_epsilon
            if question.requested_epsilon is not None
            else mechanisms.DEFAULT_EPSILON
        ),
        mechanism=question.mechanism,
        low=question.numeric_low,
        high=question.numeric_high,
        step=question.numeric_step,
        max_selections=question.max_selections,
        other_option=question.other_option,
        design=(ForcedDesign.from_json(question.design) if question.design else None),
    )


@dataclass(frozen=True)
class QuestionSummary:
    question: Question
    preview: previews.Preview | None
    error: str = ""

    @property
    def condition(self) -> str:
        """Its display logic in words ("" if always shown)."""
        return display_logic.describe(self.question.show_if, self.question.survey)


@dataclass(frozen=True)
class SurveyOverview:
    """The builder's view of a survey: its questions, ε total and budget."""

    survey: Survey
    questions: list[QuestionSummary]
    total_epsilon: float
    total_display: str
    total_exact: Decimal
    response_count: int
    released_count: int = 0  # the n researchers are shown

    @property
    def within_budget(self) -> bool:
        return self.total_exact <= Decimal(self.survey.epsilon_budget)

    @property
    def above_question_ceiling(self) -> list[QuestionSummary]:
        """Protected questions respondents' devices would refuse (ε above 5)."""
        return [
            s
            for s in self.questions
            if s.preview
            and s.preview.is_private
            and above_question_ceiling(s.preview.epsilon_exact)
        ]

    @property
    def above_survey_ceiling(self) -> bool:
        """Whether devices would refuse the whole survey (total ε above 10)."""
        return above_survey_ceiling(self.total_exact)

    @property
    def refused_by_devices(self) -> bool:
        return bool(self.above_question_ceiling) or self.above_survey_ceiling

    @property
    def total_ratio(self) -> Fraction:
        """The exact likelihood ratio of all protected answers together (the
        product of each compiled spec's; ``ldp.spec.strength.total_ratio``)."""
        return strength.total_ratio(
            s.preview.spec
            for s in self.questions
            if s.preview and s.preview.is_private and s.preview.spec
        )

    @property
    def publishable(self) -> bool:
        """Whether the survey page offers to publish (or re-publish) it."""
        status = self.survey.status
        return not self.survey.archived and (
            status == Survey.Status.DRAFT
            or (status == Survey.Status.OPEN and not self.response_count)
        )

    @property
    def weak_overall(self) -> bool:
        """Whether respondents' devices will label the survey's protection
        weak or very weak overall (the device's own limits)."""
        return strength.weak_or_worse(self.total_ratio)

    @property
    def plain_questions(self) -> list[Question]:
        return [s.question for s in self.questions if not s.question.is_private]

    @property
    def private_count(self) -> int:
        return sum(1 for s in self.questions if s.question.is_private)


def _summary(question: Question, n: int) -> QuestionSummary:
    try:
        mechanism = question.compiled_mechanism()
    except ValueError as error:
        return QuestionSummary(question, None, str(error))
    if mechanism is None:
        if question.is_private:
            return QuestionSummary(
                question, None, gettext("This question has no spec yet.")
            )
        plain = previews.preview(question_privacy_config(question), n=n)
        return QuestionSummary(question, plain)
    return QuestionSummary(
        question, previews.preview_mechanism(mechanism, n=n, design=question.design)
    )


def survey_overview(*, survey: Survey) -> SurveyOverview:
    n = survey.planned_respondents
    summaries = [_summary(q, n) for q in survey.questions.all()]
    total, display, exact = previews.total_epsilon(
        [
            s.preview.epsilon_exact
            for s in summaries
            if s.preview and s.preview.is_private
        ]
    )
    return SurveyOverview(
        survey=survey,
        questions=summaries,
        total_epsilon=total,
        total_display=display,
        total_exact=exact,
        response_count=survey_response_count(survey=survey),
        released_count=survey_released_count(survey=survey),
    )


def survey_other_specs(
    *, survey: Survey, exclude_question_id: int | None = None
) -> list[dict[str, Any]]:
    """The compiled specs of the survey's protected questions but one, for the
    builder's page to word the survey total with the device's own modules."""
    questions = survey.questions.filter(is_private=True).exclude(pk=exclude_question_id)
    return [question.spec for question in questions if question.spec]


def survey_epsilon_exact(
    *, survey: Survey, exclude_question_id: int | None = None
) -> Decimal:
    """Exact sum of the delivered ε of the survey's private questions."""
    values = []
    for question in survey.questions.filter(is_private=True).exclude(
        pk=exclude_question_id
    ):
        mechanism = question.compiled_mechanism()
        if mechanism is not None:
            values.append(mechanism.epsilon_exact)
    return sum(values, Decimal(0))
