"""Writes for the survey builder's surveys: create, edit, publish, close,
reopen and duplicate.

Every service validates its input and raises ``ValidationError`` (nothing is
changed) with a message that says what was wrong and what is allowed.
Publishing compiles every protected question's spec and freezes it as a
SpecRevision.
"""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

import ldp
from surveys.accounts import audit
from surveys.authoring import (
    access,
    lifecycle_services,
    mechanisms,
    selectors,
    translations,
)
from surveys.authoring.ldp_words import localized_number as _n
from surveys.authoring.lifecycle_services import require_not_archived
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.authoring.survey_limits import budget_error


def _require_editor(survey: Survey, user) -> None:
    access.require(survey, user, access.EDIT)


def survey_create(
    *,
    owner,
    title: str,
    description: str = "",
    consent_text: str = "",
    epsilon_budget: float = 4.0,
    planned_respondents: int = 1000,
    researcher_contact: str = "",
    allow_reanswer: bool = False,
    completion_code: str = "",
    completion_redirect_url: str = "",
    link_fields: list[str] | None = None,
    link_fields_acknowledged: bool = False,
    theme=None,
    theme_accent: str = "",
    shuffle_questions: bool = False,
    save_resume: bool = False,
) -> Survey:
    survey = Survey(
        shuffle_questions=shuffle_questions,
        save_resume=save_resume,
        owner=owner,
        title=title,
        description=description,
        consent_text=consent_text,
        epsilon_budget=epsilon_budget,
        planned_respondents=planned_respondents,
        researcher_contact=researcher_contact,
        allow_reanswer=allow_reanswer,
        completion_code=completion_code,
        completion_redirect_url=completion_redirect_url,
        link_fields=list(link_fields or []),
        link_fields_acknowledged=link_fields_acknowledged,
        theme=theme,
        theme_accent=theme_accent,
    )
    survey.full_clean()
    survey.save()
    audit.record(owner, audit.Action.CREATE, survey)
    return survey


@transaction.atomic
def survey_update(
    *,
    survey: Survey,
    actor=None,
    title: str,
    description: str,
    consent_text: str,
    epsilon_budget: float,
    planned_respondents: int,
    researcher_contact: str = "",
    allow_reanswer: bool = False,
    completion_code: str = "",
    completion_redirect_url: str = "",
    link_fields: list[str] | None = None,
    link_fields_acknowledged: bool = False,
    theme=None,
    theme_accent: str = "",
    shuffle_questions: bool = False,
    save_resume: bool = False,
) -> Survey:
    """Change a survey's texts and plan; a live survey's budget can't drop below
    its total ε."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    survey.title = title
    survey.description = description
    survey.consent_text = consent_text
    survey.epsilon_budget = epsilon_budget
    survey.planned_respondents = planned_respondents
    survey.researcher_contact = researcher_contact
    survey.allow_reanswer = allow_reanswer
    survey.completion_code = completion_code
    survey.completion_redirect_url = completion_redirect_url
    survey.link_fields = list(link_fields or [])
    survey.link_fields_acknowledged = link_fields_acknowledged
    accent_before = survey.theme_accent
    survey.theme = theme
    survey.theme_accent = theme_accent
    survey.shuffle_questions = shuffle_questions
    survey.save_resume = save_resume
    if survey.published_at is not None:
        error = budget_error(survey, selectors.survey_epsilon_exact(survey=survey))
        if error:
            raise ValidationError({"epsilon_budget": [error]})
    survey.full_clean()
    survey.save()
    if actor is not None:
        audit.record(actor, audit.Action.EDIT, survey, "survey settings")
        if theme_accent != accent_before:
            audit.record(
                actor,
                audit.Action.EDIT,
                survey,
                f"accent colour {accent_before or 'of the theme'} → "
                f"{theme_accent or 'of the theme'}",
            )
    return survey


@transaction.atomic
def survey_publish(*, survey: Survey, user, weak_confirmed: bool = True) -> Survey:
    """Compile every private question's spec, freeze it as a SpecRevision, open.

    Refused (nothing changes) without questions, above the ε budget, once
    responses exist (specs are frozen; edit a question to start a new
    revision), or, without ``weak_confirmed``, when respondents' devices would
    label the survey's protection weak or worse overall
    (``lifecycle_services.weak_overall_error``).
    """
    _require_editor(survey, user)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    if survey.status == Survey.Status.CLOSED:
        raise ValidationError(gettext("This survey is closed; reopen it instead."))
    if selectors.survey_has_responses(survey=survey):
        raise ValidationError(
            gettext(
                "This survey already has responses, so its specs are frozen. "
                "Editing a question's privacy settings starts a new revision."
            )
        )
    questions = list(survey.questions.select_for_update())
    if not questions:
        raise ValidationError(gettext("Add at least one question before publishing."))
    compiled: dict[int, ldp.Mechanism] = {}
    problems = []
    for number, question in enumerate(questions, start=1):
        if not question.is_private:
            continue
        try:
            compiled[question.pk] = mechanisms.build(
                selectors.question_privacy_config(question)
            )
        except mechanisms.MechanismError as error:
            problems.append(
                gettext("Question %(number)s (“%(text)s”): %(problem)s")
                % {"number": _n(number), "text": question.text, "problem": error}
            )
    problems.extend(translations.publish_problems(survey, questions))
    if problems:
        raise ValidationError(problems)
    total = sum((m.epsilon_exact for m in compiled.values()), Decimal(0))
    if error := budget_error(survey, total, current=True):
        raise ValidationError(error)
    specs = [m.spec for m in compiled.values()]
    if not weak_confirmed and (error := lifecycle_services.weak_overall_error(specs)):
        raise ValidationError(error)
    for question in questions:
        mechanism = compiled.get(question.pk)
        question.spec = mechanism.spec if mechanism else None
        question.save(update_fields=["spec"])
        if mechanism:
            SpecRevision.objects.update_or_create(
                question=question,
                revision=question.spec_revision,
                defaults={"spec": question.spec},
            )
        else:
            question.spec_revisions.filter(revision=question.spec_revision).delete()
    if survey.published_at is not None:
        survey.revision += 1  # pages opened before the re-publish are stale
    survey.status = Survey.Status.OPEN
    survey.published_at = survey.published_at or timezone.now()
    survey.closed_at = None
    survey.save(
        update_fields=["status", "published_at", "closed_at", "revision", "updated_at"]
    )
    audit.record(user, audit.Action.PUBLISH, survey, f"revision {survey.revision}")
    return survey


@transaction.atomic
def survey_close(*, survey: Survey, user) -> Survey:
    _require_editor(survey, user)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    if survey.status != Survey.Status.OPEN:
        raise ValidationError(
            gettext("Only an open survey can be closed; this one is %(status)s.")
            % {"status": survey.get_status_display().lower()}
        )
    survey.status = Survey.Status.CLOSED
    survey.closed_at = timezone.now()
    survey.save(update_fields=["status", "closed_at", "updated_at"])
    audit.record(user, audit.Action.CLOSE, survey)
    return survey


@transaction.atomic
def survey_reopen(*, survey: Survey, user) -> Survey:
    _require_editor(survey, user)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    if survey.status != Survey.Status.CLOSED:
        raise ValidationError(
            gettext("Only a closed survey can be reopened; this one is %(status)s.")
            % {"status": survey.get_status_display().lower()}
        )
    if error := budget_error(
        survey, selectors.survey_epsilon_exact(survey=survey), current=True
    ):
        raise ValidationError(error)
    survey.status = Survey.Status.OPEN
    survey.closed_at = None
    survey.save(update_fields=["status", "closed_at", "updated_at"])
    audit.record(user, audit.Action.REOPEN, survey)
    return survey


@transaction.atomic
def survey_duplicate(*, survey: Survey, user) -> Survey:
    """A new draft with copies of the questions (and none of the responses)."""
    _require_editor(survey, user)
    copy = survey_create(
        owner=user,
        title=f"Copy of {survey.title}"[:200],
        description=survey.description,
        consent_text=survey.consent_text,
        epsilon_budget=survey.epsilon_budget,
        planned_respondents=survey.planned_respondents,
        theme=survey.theme,
        theme_accent=survey.theme_accent,
    )
    copy.source_language = survey.source_language
    copy.languages = list(survey.languages)
    copy.translations = survey.translations
    copy.record_language = survey.record_language
    copy.save(
        update_fields=[
            "source_language",
            "languages",
            "translations",
            "record_language",
        ]
    )
    originals = list(survey.questions.all())
    created = Question.objects.bulk_create(
        Question(
            survey=copy,
            position=position,
            kind=q.kind,
            text=q.text,
            help_text=q.help_text,
            options=list(q.options),
            numeric_low=q.numeric_low,
            numeric_high=q.numeric_high,
            numeric_step=q.numeric_step,
            max_selections=q.max_selections,
            is_private=q.is_private,
            optional=q.optional,
            section_title=q.section_title,
            section_intro=q.section_intro,
            not_private_acknowledged=q.not_private_acknowledged,
            requested_epsilon=q.requested_epsilon,
            mechanism=q.mechanism,
            design=q.design,
            spec=q.spec,
            grid=q.grid,
            translations=q.translations,
        )
        for position, q in enumerate(originals, start=1)
    )
    # Conditions name questions by id: point them at the copies.
    new_id = {o.pk: c.pk for o, c in zip(originals, created, strict=True)}
    for original, made in zip(originals, created, strict=True):
        if original.show_if and original.show_if.get("question") in new_id:
            made.show_if = {
                **original.show_if,
                "question": new_id[original.show_if["question"]],
            }
    Question.objects.bulk_update(created, ["show_if"])
    return copy
