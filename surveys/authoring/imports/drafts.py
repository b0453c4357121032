"""A draft survey from a parsed questionnaire, through the builder's services.

Every question is created by ``services.question_create`` (the builder's own
checks: answer options, number ranges, the survey's size) and arrives
**unprotected**: the researcher then chooses which to protect, with the
suggestions of ``suggestions``.  A question the builder refuses, a condition
display logic cannot hold, a translation the survey cannot take: each becomes
a finding, listed on the import's page.  XLSForm's ``${name}`` in a
question's text becomes Deniable's pipe where the builder allows it
(``pipes``).  A file with more questions or answer
options than a survey may have is refused whole, and so is one with nothing
to import; then nothing is created (one transaction).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from surveys.authoring import services, translation_services
from surveys.authoring.imports import pipes
from surveys.authoring.imports.parsed import (
    TEXT_MAX,
    TITLE_MAX,
    ParsedQuestion,
    ParsedSurvey,
    refuse,
)
from surveys.authoring.ldp_words import localized_number as _n
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question, Survey, SurveyImport


def _check_size(parsed: ParsedSurvey) -> None:
    count = len(parsed.questions)
    if count > services.SURVEY_QUESTIONS_MAX:
        raise refuse(
            gettext(
                "The questionnaire has %(count)s questions Deniable can import; a "
                "survey has at most %(most)s (every respondent's page shows all of "
                "them). Split it into several surveys."
            ),
            count=_n(count),
            most=_n(services.SURVEY_QUESTIONS_MAX),
        )
    options = sum(len(q.options) for q in parsed.questions)
    if options > services.SURVEY_OPTIONS_MAX:
        raise refuse(
            gettext(
                "The questionnaire's questions offer %(count)s answer options in "
                "all; a survey offers at most %(most)s. Split it into several "
                "surveys."
            ),
            count=_n(options),
            most=_n(services.SURVEY_OPTIONS_MAX),
        )
    if not parsed.questions:
        raise refuse(
            gettext(
                "No question of this file maps onto a Deniable question (%(count)s "
                "items were read, none of a kind Deniable has)."
            ),
            count=_n(len(parsed.findings)),
        )


def _short(parsed: ParsedSurvey, question: ParsedQuestion) -> None:
    if len(question.text) > TEXT_MAX:
        parsed.note("shortened", question.name, dropped=False, most=str(TEXT_MAX))
        question.text = question.text[: TEXT_MAX - 1] + "…"
    for texts in question.translations.values():
        text = texts.get("text")
        if isinstance(text, str) and len(text) > TEXT_MAX:
            texts["text"] = text[: TEXT_MAX - 1] + "…"


def _show_if(
    parsed: ParsedSurvey,
    question: ParsedQuestion,
    made: dict[str, tuple[Question, ParsedQuestion]],
) -> dict | None:
    """The condition as display logic (question id, answer values), or None
    with a finding when it names a question not imported or an answer the
    question does not have."""
    condition = question.condition
    if condition is None:
        return None
    if condition.driver not in made:
        parsed.note(
            "condition_driver",
            question.name,
            dropped=False,
            driver=condition.driver,
        )
        return None
    driver, source = made[condition.driver]
    try:
        values = sorted({source.option_names.index(v) for v in condition.any_of})
    except ValueError:
        parsed.note(
            "condition",
            question.name,
            dropped=False,
            expression=f"{condition.driver}: {', '.join(condition.any_of)}",
        )
        return None
    return {"question": driver.pk, "any_of": values}


def _create(
    survey: Survey, parsed: ParsedSurvey, question: ParsedQuestion, show_if
) -> Question:
    return services.question_create(
        survey=survey,
        text=question.text,
        privacy=PrivacyConfig(
            kind=question.kind,
            is_private=False,
            options=tuple(question.options),
            low=question.low,
            high=question.high,
            step=question.step,
            other_option=question.other_option,
        ),
        help_text=question.help_text,
        not_private_acknowledged=True,
        optional=question.optional,
        section_title=question.section_title[:200],
        section_intro=question.section_intro,
        show_if=show_if,
    )


def _problem(error: ValidationError) -> str:
    return " ".join(str(m) for m in error.messages)[:300]


def _questions(survey: Survey, parsed: ParsedSurvey) -> dict[int, ParsedQuestion]:
    """Create each question in order; {new question id: what it came from}."""
    made: dict[str, tuple[Question, ParsedQuestion]] = {}
    created: dict[int, ParsedQuestion] = {}
    for question in parsed.questions:
        pipes.convert(parsed, question, {name: q for name, (q, _) in made.items()})
        _short(parsed, question)
        show_if = _show_if(parsed, question, made)
        try:
            try:
                saved = _create(survey, parsed, question, show_if)
            except ValidationError as error:
                if show_if is None or "show_if" not in getattr(error, "error_dict", {}):
                    raise
                parsed.note(
                    "condition",
                    question.name,
                    dropped=False,
                    expression=_problem(error),
                )
                saved = _create(survey, parsed, question, None)
        except ValidationError as error:
            parsed.note("refused", question.name, problem=_problem(error))
            continue
        made[question.name] = (saved, question)
        created[saved.pk] = question
    return created


def _languages(
    survey: Survey, owner, parsed: ParsedSurvey, created: dict[int, ParsedQuestion]
) -> None:
    source = parsed.source_language or survey.source_language
    translation_services.survey_languages_update(
        survey=survey,
        user=owner,
        source_language=source,
        languages=parsed.languages,
        record_language=False,
    )
    survey.refresh_from_db()
    for language in survey.languages:
        per_question = {}
        for pk, question in created.items():
            texts = dict(question.translations.get(language, {}))
            if question.kind == Question.Kind.YES_NO:
                texts.pop("options", None)
            else:  # a label left untranslated stays missing; numbers read alike
                texts.setdefault(
                    "options",
                    [o if o.strip().isdigit() else "" for o in question.options],
                )
            per_question[pk] = texts
        try:
            translation_services.translations_update(
                survey=survey,
                user=owner,
                language=language,
                survey_texts=parsed.translations.get(language, {}),
                question_texts=per_question,
            )
        except ValidationError as error:
            parsed.note("translation", language, dropped=False, problem=_problem(error))


@transaction.atomic
def draft_from(
    *, owner, parsed: ParsedSurvey, source: str, file_name: str = ""
) -> Survey:
    """A new draft survey owned by ``owner`` from ``parsed``, with its import
    record; ValidationError (nothing created) for a file Deniable cannot
    take as a whole."""
    _check_size(parsed)
    survey = services.survey_create(
        owner=owner,
        title=parsed.title[:TITLE_MAX],
        description=parsed.description,
    )
    created = _questions(survey, parsed)
    if not created:
        raise refuse(
            gettext("The builder refused every question of this file: %(problem)s"),
            problem="; ".join(f.values.get("problem", "") for f in parsed.findings)[
                :400
            ],
        )
    _languages(survey, owner, parsed, created)
    SurveyImport.objects.create(
        survey=survey,
        source=source,
        file_name=file_name[:200],
        findings=[f.as_json() for f in parsed.findings],
    )
    survey.refresh_from_db()
    return survey
