"""Writes for the survey builder's questions: add (one or a grid), edit,
delete and move.

Every service validates its input and raises ``ValidationError`` (nothing is
changed) with a message that says what was wrong and what is allowed.  Specs
are immutable once the first response arrives: a changed privacy setting then
becomes a new SpecRevision and a new survey revision.
"""

from __future__ import annotations

from typing import Literal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext, ngettext

from surveys.accounts import audit
from surveys.authoring import display_logic, piping, selectors
from surveys.authoring import quotas as quota_rules
from surveys.authoring.ldp_words import localized_number as _n
from surveys.authoring.lifecycle_services import require_not_archived
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import GRID_SEPARATOR, Question, SpecRevision, Survey
from surveys.authoring.survey_limits import budget_error, size_error
from surveys.authoring.validation import question_validate


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
    if error := size_error(survey, config):
        raise ValidationError(error)
    published = survey.published_at is not None
    if published and mechanism is not None:
        total = selectors.survey_epsilon_exact(survey=survey) + mechanism.epsilon_exact
        if error := budget_error(survey, total):
            raise ValidationError({_epsilon_field(config): [error]})
    last = survey.questions.aggregate(last=Max("position"))["last"] or 0
    display_logic.validate(survey, show_if, position=last + 1)
    piping.validate(survey, text=text, is_private=privacy.is_private, position=last + 1)
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
    if error := size_error(survey, config, exclude_question_id=question.pk):
        raise ValidationError(error)
    display_logic.validate(survey, show_if, position=question.position)
    piping.validate(
        survey, text=text, is_private=privacy.is_private, position=question.position
    )
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
    piping.require_intact(survey)
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
    if pipers := piping.users(question):
        raise ValidationError(
            gettext(
                "%(questions)s repeats this question's answer in its text: remove "
                "that first. Nothing was changed."
            )
            % {"questions": ", ".join(f"“{q.text}”" for q in pipers)}
        )
    if actor is not None:
        audit.record(actor, audit.Action.EDIT, survey, f"deleted “{question.text}”")
    question.delete()
    _renumber(survey)
    if survey.published_at is not None:
        _bump_revision(survey)


def _renumber(survey: Survey, ordered: list[Question] | None = None) -> None:
    ordered = ordered if ordered is not None else list(survey.questions.all())
    moves = {}
    for position, question in enumerate(ordered, start=1):
        moves[question.position] = position
        question.position = position
    Question.objects.bulk_update(ordered, ["position"])
    piping.renumber(ordered, moves)


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
    piping.require_intact(survey)
