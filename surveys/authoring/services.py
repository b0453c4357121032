"""Writes for the survey builder: surveys, questions, publishing and revisions.

Every service validates its input and raises ``ValidationError`` (nothing is
changed) with a message that says what was wrong and what is allowed.  Specs
are immutable once the first response arrives: a changed privacy setting then
becomes a new SpecRevision and a new survey revision.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext, ngettext

import ldp
from ldp.spec.ceilings import EPSILON_CEILING_SURVEY, above_survey_ceiling
from surveys.accounts import audit
from surveys.authoring import (
    access,
    display_logic,
    lifecycle_services,
    mechanisms,
    previews,
    selectors,
    translations,
)
from surveys.authoring import quotas as quota_rules
from surveys.authoring.ldp_words import localized_number as _n
from surveys.authoring.lifecycle_services import require_not_archived
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import GRID_SEPARATOR, Question, SpecRevision, Survey
from surveys.authoring.validation import question_validate

BUDGET_MAX = 100.0
# Bounded cost: the consent and answer pages show every question and option to
# every respondent, so their cost grows with the survey's size.  Within these
# they stay within their budget (README, "Limits"; benchmarks/page_cost.py).
SURVEY_QUESTIONS_MAX = 50
SURVEY_OPTIONS_MAX = 512


def _require_editor(survey: Survey, user) -> None:
    access.require(survey, user, access.EDIT)


def budget_error(
    survey: Survey, total: Decimal, *, current: bool = False, changed: bool = True
) -> str | None:
    """Why a total ε of ``total`` is refused for ``survey`` (None: it is not).

    The message speaks of a change ("would be", then "Nothing was changed."),
    or with ``current`` of the survey as it is ("is"); ``changed=False`` leaves
    out "Nothing was changed." (an import says "Nothing was imported.").
    """
    _, display, _ = previews.total_epsilon([total])
    values = {
        "total": _n(display),
        "ceiling": _n(EPSILON_CEILING_SURVEY),
        "budget": _n(survey.epsilon_budget),
    }
    if above_survey_ceiling(total):
        if current:
            message = gettext(
                "The total ε per respondent is %(total)s, above %(ceiling)s: "
                "respondents' devices refuse any survey above that (taken "
                "together, the answers would then tell almost surely what each "
                "person answered). Lower a question's ε or remove a question."
            )
        else:
            message = gettext(
                "The total ε per respondent would be %(total)s, above %(ceiling)s: "
                "respondents' devices refuse any survey above that (taken "
                "together, the answers would then tell almost surely what each "
                "person answered). Lower a question's ε or remove a question."
            )
    elif total <= Decimal(survey.epsilon_budget):
        return None
    elif current:
        message = gettext(
            "The total ε per respondent is %(total)s, above this survey's budget "
            "of %(budget)s. Lower a question's ε, remove a question, or raise the "
            "budget."
        )
    else:
        message = gettext(
            "The total ε per respondent would be %(total)s, above this survey's "
            "budget of %(budget)s. Lower a question's ε, remove a question, or "
            "raise the budget."
        )
    message %= values
    if changed:
        message = gettext("%(problem)s Nothing was changed.") % {"problem": message}
    return message


def _size_error(
    survey: Survey, config: PrivacyConfig, *, exclude_question_id: int | None = None
) -> dict[str, list[str]] | None:
    """Why adding (or changing) a question would make the survey too big.

    At most ``SURVEY_QUESTIONS_MAX`` questions and ``SURVEY_OPTIONS_MAX``
    answer options in all (yes/no counts 2, a number question none).
    """
    others = survey.questions.exclude(pk=exclude_question_id)
    count = others.count() + 1
    if count > SURVEY_QUESTIONS_MAX:
        return {
            "__all__": [
                gettext(
                    "This survey would have %(count)s questions; allowed: at most "
                    "%(most)s, because every respondent's page shows all of them, "
                    "and a bigger survey makes it too slow to serve (and to "
                    "answer). Nothing was changed."
                )
                % {"count": _n(count), "most": _n(SURVEY_QUESTIONS_MAX)}
            ]
        }
    options = sum(len(q.options or ()) for q in others) + len(config.options)
    if options > SURVEY_OPTIONS_MAX:
        return {
            "options": [
                gettext(
                    "This survey's questions would offer %(count)s answer options "
                    "in all; allowed: at most %(most)s, because every respondent's "
                    "page shows all of them, and a bigger survey makes it too slow "
                    "to serve (and to answer). Use fewer options, or split the "
                    "survey. Nothing was changed."
                )
                % {"count": _n(options), "most": _n(SURVEY_OPTIONS_MAX)}
            ]
        }
    return None


# --- surveys ----------------------------------------------------------------------
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
    shuffle_questions: bool = False,
) -> Survey:
    survey = Survey(
        shuffle_questions=shuffle_questions,
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
    shuffle_questions: bool = False,
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
    survey.theme = theme
    survey.shuffle_questions = shuffle_questions
    if survey.published_at is not None:
        error = budget_error(survey, selectors.survey_epsilon_exact(survey=survey))
        if error:
            raise ValidationError({"epsilon_budget": [error]})
    survey.full_clean()
    survey.save()
    if actor is not None:
        audit.record(actor, audit.Action.EDIT, survey, "survey settings")
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


# --- questions --------------------------------------------------------------------
def _bump_revision(survey: Survey) -> None:
    """A published survey's questions or specs changed: pages opened before are
    stale (the collection app refuses responses made under another revision)."""
    survey.revision += 1
    survey.save(update_fields=["revision", "updated_at"])


def _apply(
    question: Question,
    config: PrivacyConfig,
    mechanism,
    *,
    text,
    help_text,
    acknowledged,
    optional=False,
    section_title="",
    section_intro="",
):
    question.kind = config.kind
    question.text = text
    question.help_text = help_text
    question.options = list(config.options)
    question.numeric_low = config.low
    question.numeric_high = config.high
    question.numeric_step = config.step
    question.max_selections = config.max_selections
    question.is_private = config.is_private
    question.other_option = config.other_option
    question.optional = optional
    question.section_title = section_title
    question.section_intro = section_intro
    question.not_private_acknowledged = (not config.is_private) and acknowledged
    question.requested_epsilon = config.epsilon
    question.mechanism = config.mechanism
    question.design = (
        config.design.as_json() if config.design and config.is_private else None
    )
    question.spec = mechanism.spec if mechanism else None


def _epsilon_field(config: PrivacyConfig) -> str:
    """The form field that decides a question's ε: its design, if it has one."""
    return "design" if config.design is not None else "requested_epsilon"


def _privacy_key(config: PrivacyConfig) -> tuple:
    """What decides the randomization (ε and mechanism only matter if private)."""
    key = (config.kind, config.is_private, config.options, config.low, config.high)
    key += (config.step, config.max_selections, config.other_option)
    design = config.design.as_json() if config.design else None
    private = (config.epsilon, config.mechanism, str(design))
    return key + (private if config.is_private else ())


GRID_ROWS_MIN, GRID_ROWS_MAX = 2, 20


@transaction.atomic
def grid_create(
    *,
    survey: Survey,
    stem: str,
    items: list[str],
    privacy: PrivacyConfig,
    optional: bool = False,
    section_title: str = "",
    section_intro: str = "",
) -> list[Question]:
    """Add a grid of scale items at the end: one protected scale question per
    item, each with its own mechanism, ε and report, sharing the stem and the
    scale (shown together as one grid on the answer page).  All or nothing."""
    stem = " ".join(stem.split())
    items = [" ".join(item.split()) for item in items if item.strip()]
    if not stem:
        raise ValidationError(
            {"stem": [gettext("Give the grid a question, e.g. “How often do you…”.")]}
        )
    if len(stem) > 200:
        raise ValidationError(
            {
                "stem": [
                    gettext("The grid's question is at most %(most)s characters.")
                    % {"most": _n(200)}
                ]
            }
        )
    if not GRID_ROWS_MIN <= len(items) <= GRID_ROWS_MAX:
        raise ValidationError(
            {
                "items": [
                    # English says "items" for any count (the wording is
                    # fixed); Spanish and French use their plural forms.
                    ngettext(
                        "%(count)s items; a grid has %(least)s to %(most)s, one per "
                        "line.",
                        "%(count)s items; a grid has %(least)s to %(most)s, one per "
                        "line.",
                        len(items),
                    )
                    % {
                        "count": _n(len(items)),
                        "least": _n(GRID_ROWS_MIN),
                        "most": _n(GRID_ROWS_MAX),
                    }
                ]
            }
        )
    if len({item.lower() for item in items}) != len(items):
        raise ValidationError({"items": [gettext("Each item appears once.")]})
    if privacy.kind != Question.Kind.ORDINAL or not privacy.is_private:
        raise ValidationError(gettext("A grid's rows are protected scale questions."))
    longest = max(items, key=len)
    if len(stem) + len(GRID_SEPARATOR) + len(longest) > 500:
        raise ValidationError(
            {
                "items": [
                    gettext("“%(item)s” is too long next to the grid's question.")
                    % {"item": longest}
                ]
            }
        )
    made = []
    for number, item in enumerate(items):
        question = question_create(
            survey=survey,
            text=f"{stem}{GRID_SEPARATOR}{item}",
            privacy=privacy,
            optional=optional,
            section_title=section_title if number == 0 else "",
            section_intro=section_intro if number == 0 else "",
        )
        Question.objects.filter(pk=question.pk).update(grid=stem)
        question.grid = stem
        made.append(question)
    return made


@transaction.atomic
def question_create(
    *,
    survey: Survey,
    actor=None,
    text: str,
    privacy: PrivacyConfig,
    help_text: str = "",
    not_private_acknowledged: bool = False,
    optional: bool = False,
    section_title: str = "",
    section_intro: str = "",
    show_if: dict | None = None,
    shuffle_options: bool = False,
    quotas: dict[str, int] | None = None,
) -> Question:
    """Add a question at the end.  On a published survey its spec is frozen at
    once (and a survey with responses moves to a new revision)."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    config, mechanism = question_validate(
        privacy=privacy, acknowledged=not_private_acknowledged
    )
    if error := _size_error(survey, config):
        raise ValidationError(error)
    published = survey.published_at is not None
    if published and mechanism is not None:
        total = selectors.survey_epsilon_exact(survey=survey) + mechanism.epsilon_exact
        if error := budget_error(survey, total):
            raise ValidationError({_epsilon_field(config): [error]})
    last = survey.questions.aggregate(last=Max("position"))["last"] or 0
    display_logic.validate(survey, show_if, position=last + 1)
    question = Question(
        survey=survey,
        position=last + 1,
        show_if=show_if,
        shuffle_options=shuffle_options,
        quotas=dict(quotas or {}),
    )
    _apply(
        question,
        config,
        mechanism,
        text=text,
        help_text=help_text,
        acknowledged=not_private_acknowledged,
        optional=optional,
        section_title=section_title,
        section_intro=section_intro,
    )
    quota_rules.validate(question)
    question.full_clean()
    question.save()
    if published:
        if mechanism is not None:
            SpecRevision.objects.create(
                question=question, revision=question.spec_revision, spec=question.spec
            )
        _bump_revision(survey)
    if actor is not None:
        audit.record(actor, audit.Action.EDIT, survey, f"added “{question.text}”")
    return question


def _refuse_kind_or_protection_change(
    config: PrivacyConfig, old: PrivacyConfig
) -> None:
    """Once a survey has responses, a question keeps its kind and protection."""
    if config.kind != old.kind:
        raise ValidationError(
            {
                "kind": [
                    gettext(
                        "This survey has responses, so a question's kind can't "
                        "change. Add a new question instead."
                    )
                ]
            }
        )
    if config.is_private != old.is_private:
        raise ValidationError(
            {
                "protection": [
                    gettext(
                        "This survey has responses, so a question can't "
                        "switch between protected and not protected. Add "
                        "a new question instead."
                    )
                ]
            }
        )


def _store_spec(
    question: Question,
    survey: Survey,
    mechanism,
    old_spec,
    *,
    changed: bool,
    responded: bool,
    published: bool,
    optional_changed: bool,
) -> None:
    """Keep, overwrite or add the question's spec revision for an edit.

    A text-only edit keeps the frozen spec.  A changed privacy setting becomes
    a new SpecRevision once the survey has responses, overwrites the current
    one while it is published without responses, and either way makes pages
    opened before stale (a new survey revision).
    """
    if not changed:
        # Text-only edit: keep the frozen spec exactly as published.
        question.spec = old_spec
        if optional_changed and published:
            _bump_revision(survey)
    elif responded:
        question.spec_revision += 1
        if mechanism is not None:
            SpecRevision.objects.create(
                question=question, revision=question.spec_revision, spec=question.spec
            )
        _bump_revision(survey)
    elif published:
        if mechanism is not None:
            SpecRevision.objects.update_or_create(
                question=question,
                revision=question.spec_revision,
                defaults={"spec": question.spec},
            )
        else:
            question.spec_revisions.filter(revision=question.spec_revision).delete()
        _bump_revision(survey)


@transaction.atomic
def question_update(
    *,
    question: Question,
    actor=None,
    text: str,
    privacy: PrivacyConfig,
    help_text: str = "",
    not_private_acknowledged: bool = False,
    optional: bool = False,
    section_title: str = "",
    section_intro: str = "",
    show_if: dict | None = None,
    shuffle_options: bool = False,
    quotas: dict[str, int] | None = None,
) -> Question:
    """Edit a question.  Text-only edits never touch specs.  A changed privacy
    setting overwrites the current spec while no response exists; afterwards it
    becomes a new SpecRevision (and survey revision), leaving old ones intact."""
    survey = Survey.objects.select_for_update().get(pk=question.survey_id)
    require_not_archived(survey)
    question = Question.objects.select_for_update().get(pk=question.pk)
    config, mechanism = question_validate(
        privacy=privacy, acknowledged=not_private_acknowledged
    )
    if error := _size_error(survey, config, exclude_question_id=question.pk):
        raise ValidationError(error)
    display_logic.validate(survey, show_if, position=question.position)
    old = selectors.question_privacy_config(question)
    old_spec = question.spec
    # Optional or required, shown always or on a condition, decides what a
    # submission must hold: pages opened under the other rule are stale.
    optional_changed = question.optional != optional or question.show_if != show_if
    # Shuffling options and quotas change no submission's shape: pages opened
    # before such a change stay valid (no new revision).
    question.show_if = show_if
    question.shuffle_options = shuffle_options
    question.quotas = dict(quotas or {})
    changed = _privacy_key(config) != _privacy_key(old)
    published = survey.published_at is not None
    responded = published and selectors.survey_has_responses(survey=survey)
    if changed and responded:
        _refuse_kind_or_protection_change(config, old)
    if changed and published and mechanism is not None:
        others = selectors.survey_epsilon_exact(
            survey=survey, exclude_question_id=question.pk
        )
        if error := budget_error(survey, others + mechanism.epsilon_exact):
            raise ValidationError({_epsilon_field(config): [error]})
    _apply(
        question,
        config,
        mechanism,
        text=text,
        help_text=help_text,
        acknowledged=not_private_acknowledged,
        optional=optional,
        section_title=section_title,
        section_intro=section_intro,
    )
    _store_spec(
        question,
        survey,
        mechanism,
        old_spec,
        changed=changed,
        responded=responded,
        published=published,
        optional_changed=optional_changed,
    )
    quota_rules.validate(question)
    question.full_clean()
    question.save()
    if problems := display_logic.check_survey(survey):
        raise ValidationError(
            [
                gettext(
                    "Other questions are shown depending on this one, and this "
                    "change would break their conditions:"
                ),
                *problems,
                gettext("Change those conditions first. Nothing was changed."),
            ]
        )
    if actor is not None:
        audit.record(
            actor, audit.Action.EDIT, question.survey, f"question “{question.text}”"
        )
    return question


@transaction.atomic
def question_delete(*, question: Question, actor=None) -> None:
    survey = Survey.objects.select_for_update().get(pk=question.survey_id)
    require_not_archived(survey)
    if selectors.survey_has_responses(survey=survey):
        raise ValidationError(
            gettext(
                "This survey has responses, so its questions can't be deleted. "
                "Close the survey, or duplicate it and edit the copy."
            )
        )
    if followers := display_logic.dependents(question):
        names = ", ".join(f"“{q.text}”" for q in followers)
        raise ValidationError(
            ngettext(
                "%(questions)s is shown depending on this question: remove that "
                "condition first. Nothing was changed.",
                "%(questions)s are shown depending on this question: remove that "
                "condition first. Nothing was changed.",
                len(followers),
            )
            % {"questions": names}
        )
    if actor is not None:
        audit.record(actor, audit.Action.EDIT, survey, f"deleted “{question.text}”")
    question.delete()
    _renumber(survey)
    if survey.published_at is not None:
        _bump_revision(survey)


def _renumber(survey: Survey, ordered: list[Question] | None = None) -> None:
    ordered = ordered if ordered is not None else list(survey.questions.all())
    for position, question in enumerate(ordered, start=1):
        question.position = position
    Question.objects.bulk_update(ordered, ["position"])


@transaction.atomic
def question_move(*, question: Question, direction: Literal["up", "down"]) -> None:
    """Swap a question with its neighbour; moving past either end does nothing."""
    if direction not in ("up", "down"):
        raise ValidationError(f"direction is {direction!r}; allowed: up, down")
    survey = Survey.objects.select_for_update().get(pk=question.survey_id)
    require_not_archived(survey)
    ordered = list(survey.questions.all())
    index = next(i for i, q in enumerate(ordered) if q.pk == question.pk)
    other = index - 1 if direction == "up" else index + 1
    if 0 <= other < len(ordered):
        ordered[index], ordered[other] = ordered[other], ordered[index]
    _renumber(survey, ordered)
    if problems := display_logic.check_survey(survey):
        raise ValidationError(
            [
                gettext(
                    "A question can only depend on an earlier one; this move would "
                    "put it before the question it depends on:"
                ),
                *problems,
                gettext("Nothing was changed."),
            ]
        )
