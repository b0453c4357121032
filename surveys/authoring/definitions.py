"""A survey's definition as a versioned JSON document: export and import.

A study moves between servers (a pilot server and the production one, or a
colleague's installation) as its *definition*: the survey's texts and plan and
its questions with their answer domains and privacy settings.  The document
never carries responses, reports, the owner, the public link, invitation
tokens, dates of the study, or anything else that identifies a person or lets
someone answer the original survey.

The document's shape is fixed by ``docs/survey-definition.schema.json`` (JSON
Schema, draft 2020-12), with ``format`` and ``version`` fields so a reader can
refuse a document it does not understand.  Each question's compiled ``spec``
is included for the reader's information (it states the exact mechanism and ε
the exporting server ran); an import compiles its own from the privacy
settings with this server's ``ldp``, so a document cannot smuggle in a spec the
builder would refuse.  An import goes through the same services and checks as
the builder (ε range, mechanism, size limits, the survey's budget) in one
transaction: a bad document creates nothing.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from surveys.authoring import previews, selectors, services
from surveys.authoring.definition_checks import (
    checked_fields,
    import_languages,
    prefixed_problems,
    privacy_config,
    show_if_condition,
)
from surveys.authoring.ldp_words import localized_number as _n
from surveys.authoring.mechanisms import DEFAULT_EPSILON
from surveys.authoring.models import Question, Survey

FORMAT = "deniable.survey-definition"
VERSION = 1
# An upload larger than this is refused before it is parsed.  The largest
# survey the builder allows (50 questions, 512 options of 200 characters, long
# texts) stays well below it.
MAX_BYTES = 1_000_000

SURVEY_FIELDS: dict[str, type | tuple[type, ...]] = {
    "title": str,
    "description": str,
    "consent_text": str,
    "epsilon_budget": (int, float),
    "planned_respondents": int,
    "researcher_contact": str,
    "allow_reanswer": bool,
    "completion_code": str,
    "completion_redirect_url": str,
    "time_zone": str,
    "close_at_responses": (int, type(None)),
    "invitation_only": bool,
    "link_fields": list,
    "link_fields_acknowledged": bool,
    "source_language": str,
    "languages": list,
    "record_language": bool,
    "translations": dict,
    "shuffle_questions": bool,
    "save_resume": bool,
}
# Written only when set, so a survey without them reads on servers that predate them.
OPTIONAL_SURVEY_FIELDS = ("link_fields", "link_fields_acknowledged")
# Written only when on, for the same reason.
OPTIONAL_SURVEY_FLAGS = ("shuffle_questions", "save_resume")
# Written only for a survey offered in more than its source language.
LANGUAGE_FIELDS = ("source_language", "languages", "record_language", "translations")
QUESTION_FIELDS: dict[str, type | tuple[type, ...]] = {
    "kind": str,
    "text": str,
    "help_text": str,
    "options": list,
    "numeric_low": (str, type(None)),
    "numeric_high": (str, type(None)),
    "numeric_step": (str, type(None)),
    "max_selections": (int, type(None)),
    "is_private": bool,
    "optional": bool,
    "section_title": str,
    "section_intro": str,
    "not_private_acknowledged": bool,
    "epsilon": (int, float),
    "mechanism": str,
    "design": (dict, type(None)),
    "spec": (dict, type(None)),
    "show_if": (dict, type(None)),
    "grid": str,
    "translations": dict,
    "other_option": bool,
    "shuffle_options": bool,
    "quotas": dict,
}
REQUIRED_SURVEY = ("title",)
REQUIRED_QUESTION = ("kind", "text")


def _decimal_text(value: Decimal | None) -> str | None:
    return None if value is None else format(value.normalize(), "f")


def question_document(
    question: Question, positions: dict[int, int] | None = None
) -> dict[str, Any]:
    """One question's definition (no ids, no revisions, no responses).

    Display logic names the question it depends on by its number in the
    document (``positions``: question id → 1-based number), never by id.
    """
    show_if = None
    if question.show_if and positions:
        show_if = {
            "question_number": positions.get(question.show_if.get("question")),
            "any_of": list(question.show_if.get("any_of", [])),
        }
    return {
        "kind": question.kind,
        "text": question.text,
        "help_text": question.help_text,
        "options": list(question.options or ()),
        "numeric_low": _decimal_text(question.numeric_low),
        "numeric_high": _decimal_text(question.numeric_high),
        "numeric_step": _decimal_text(question.numeric_step),
        "max_selections": question.max_selections,
        "is_private": question.is_private,
        "optional": question.optional,
        "section_title": question.section_title,
        "section_intro": question.section_intro,
        "not_private_acknowledged": question.not_private_acknowledged,
        "epsilon": (
            question.requested_epsilon
            if question.requested_epsilon is not None
            else DEFAULT_EPSILON
        ),
        "mechanism": question.mechanism,
        "design": question.design if question.is_private else None,
        "spec": question.spec if question.is_private else None,
        "show_if": show_if,
        **({"grid": question.grid} if question.grid else {}),
        **({"other_option": True} if question.other_option else {}),
        **({"shuffle_options": True} if question.shuffle_options else {}),
        **({"quotas": question.quotas} if question.quotas else {}),
        **({"translations": question.translations} if question.translations else {}),
    }


def definition_document(survey: Survey) -> dict[str, Any]:
    """The survey's definition: ``format``, ``version``, the survey, its
    questions in order, and the total ε per respondent they add up to."""
    questions = list(survey.questions.order_by("position", "id"))
    _, total_display, _ = previews.total_epsilon(
        [selectors.survey_epsilon_exact(survey=survey)]
    )
    return {
        "format": FORMAT,
        "version": VERSION,
        "survey": {
            name: getattr(survey, name)
            for name in SURVEY_FIELDS
            if (name not in OPTIONAL_SURVEY_FIELDS or survey.link_fields)
            and (name not in LANGUAGE_FIELDS or survey.languages)
            and (name not in OPTIONAL_SURVEY_FLAGS or getattr(survey, name))
        },
        "questions": [
            question_document(
                q, {other.pk: n for n, other in enumerate(questions, start=1)}
            )
            for q in questions
        ],
        "total_epsilon": total_display,
    }


def definition_json(survey: Survey) -> str:
    """The definition as indented UTF-8 JSON text (what the download holds)."""
    return json.dumps(definition_document(survey), ensure_ascii=False, indent=2) + "\n"


# --- import -------------------------------------------------------------------------
def parse_definition(raw: bytes) -> dict[str, Any]:
    """The uploaded bytes as a definition document, or ValidationError saying
    what is wrong (size, encoding, JSON syntax, format, version)."""
    if len(raw) > MAX_BYTES:
        raise ValidationError(
            gettext(
                "The file is %(size)s bytes; a survey definition is at most "
                "%(most)s bytes. Nothing was imported."
            )
            % {
                "size": _n(len(raw), grouping=True),
                "most": _n(MAX_BYTES, grouping=True),
            }
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValidationError(
            gettext(
                "The file is not UTF-8 text (byte %(byte)s). Export the definition "
                "again from Deniable. Nothing was imported."
            )
            % {"byte": error.start}
        ) from None
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        raise ValidationError(
            gettext("The file is not valid JSON (%(error)s). Nothing was imported.")
            % {"error": error}
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValidationError(
            gettext(
                "This is not a Deniable survey definition (its “format” must be "
                "“%(format)s”). Nothing was imported."
            )
            % {"format": FORMAT}
        )
    version = document.get("version")
    if version != VERSION:
        raise ValidationError(
            gettext(
                "This definition has version %(version)s; this server reads version "
                "%(readable)s. Export it again from a matching Deniable. Nothing was "
                "imported."
            )
            % {"version": repr(version), "readable": VERSION}
        )
    return document


def _refuse_constant(token: str) -> float:
    raise ValueError(f"{token} is not a number JSON allows")


def _checked_questions(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The document's questions, each checked for its fields and their types."""
    questions = document.get("questions")
    if not isinstance(questions, list):
        raise ValidationError(
            gettext("“questions” must be a list of questions. Nothing was imported.")
        )
    if len(questions) > services.SURVEY_QUESTIONS_MAX:
        raise ValidationError(
            gettext(
                "The definition has %(count)s questions; a survey has at most "
                "%(most)s. Nothing was imported."
            )
            % {
                "count": _n(len(questions)),
                "most": _n(services.SURVEY_QUESTIONS_MAX),
            }
        )
    return [
        checked_fields(
            q,
            QUESTION_FIELDS,
            REQUIRED_QUESTION,
            gettext("Question %(number)s") % {"number": number},
        )
        for number, q in enumerate(questions, start=1)
    ]


def _new_survey(owner, survey_data: dict[str, Any]) -> Survey:
    """The draft survey of the document's checked survey fields (less its
    languages), created and cleaned as the builder would."""
    lifecycle = {
        name: survey_data.pop(name)
        for name in ("time_zone", "close_at_responses", "invitation_only")
        if name in survey_data
    }
    try:
        survey = services.survey_create(owner=owner, **survey_data)
        if lifecycle:
            for name, value in lifecycle.items():
                setattr(survey, name, value)
            survey.full_clean()
            survey.save(update_fields=[*lifecycle, "updated_at"])
    except ValidationError as error:
        raise ValidationError(
            [
                *prefixed_problems(gettext("The survey"), error),
                gettext("Nothing was imported."),
            ]
        ) from None
    return survey


@transaction.atomic
def definition_import(*, owner, document: dict[str, Any]) -> Survey:
    """A new draft survey owned by ``owner`` from a parsed definition.

    Every question goes through ``services.question_create`` (the builder's
    own checks); the total ε is checked against the survey's budget as
    publishing would.  Any problem raises ValidationError listing every
    question's problems, and the transaction leaves nothing behind.
    """
    survey_data = dict(
        checked_fields(
            document.get("survey"),
            SURVEY_FIELDS,
            REQUIRED_SURVEY,
            gettext("The survey"),
        )
    )
    checked = _checked_questions(document)
    languages = {
        name: survey_data.pop(name) for name in LANGUAGE_FIELDS if name in survey_data
    }
    survey = _new_survey(owner, survey_data)
    problems: list[str] = []
    created: dict[int, int] = {}  # number in the document → new question id
    for number, data in enumerate(checked, start=1):
        where = gettext("Question %(number)s (“%(text)s”)") % {
            "number": number,
            "text": data["text"][:60],
        }
        try:
            show_if = show_if_condition(data.get("show_if"), created, where)
            question = services.question_create(
                survey=survey,
                text=data["text"],
                privacy=privacy_config(data, where),
                help_text=data.get("help_text", ""),
                not_private_acknowledged=data.get("not_private_acknowledged", False),
                optional=data.get("optional", False),
                section_title=data.get("section_title", ""),
                section_intro=data.get("section_intro", ""),
                show_if=show_if,
                shuffle_options=data.get("shuffle_options", False),
                quotas=data.get("quotas") or {},
            )
            grid = data.get("grid", "")
            if grid:
                if len(grid) > 200 or not data["text"].startswith(grid):
                    raise ValidationError(
                        gettext(
                            "“grid” is the stem its text starts with (at most 200 "
                            "characters)."
                        )
                    )
                Question.objects.filter(pk=question.pk).update(grid=grid)
            created[number] = question.pk
        except ValidationError as error:
            problems.extend(prefixed_problems(where, error))
    if not problems and languages:
        problems.extend(import_languages(survey, owner, languages, checked))
    if not problems:
        total = selectors.survey_epsilon_exact(survey=survey)
        if error := services.budget_error(survey, total, changed=False):
            problems.append(error)
    if problems:
        raise ValidationError([*problems, gettext("Nothing was imported.")])
    return survey
