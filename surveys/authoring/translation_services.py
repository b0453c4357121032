"""Writes for a survey's languages and translations (``translations``).

Like the source texts, translations may be edited while a survey is live (a
text-only change keeps every spec and revision); only which languages exist
and whether submissions record theirs are survey settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext, ngettext

from surveys.authoring import access, translations
from surveys.authoring.lifecycle_services import require_not_archived
from surveys.authoring.models import Question, Survey


def _known(code: str) -> bool:
    return code in dict(settings.LANGUAGES)


@transaction.atomic
def survey_languages_update(
    *,
    survey: Survey,
    user,
    source_language: str,
    languages: Sequence[str],
    record_language: bool,
) -> Survey:
    """Set the survey's source language, the other languages it is offered in,
    and whether each submission records its language.

    Refused (nothing changes) for an unknown language, or a new source language
    once the survey is published (its texts were written and read in it).  A
    removed language's translations are kept, so adding it back restores them.
    Turning recording on or off on a published survey starts a new revision:
    pages opened before said the other thing on their consent page.
    """
    access.require(survey, user, access.EDIT)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    unknown = [code for code in [source_language, *languages] if not _known(code)]
    if unknown:
        offered = ", ".join(code for code, _ in settings.LANGUAGES)
        raise ValidationError(
            gettext(
                "Unknown language %(codes)s; Deniable offers %(offered)s. Nothing "
                "was changed."
            )
            % {"codes": ", ".join(unknown), "offered": offered}
        )
    if survey.published_at is not None and source_language != survey.source_language:
        raise ValidationError(
            {
                "source_language": [
                    gettext(
                        "This survey is published, so the language its texts are "
                        "written in can't change. Nothing was changed."
                    )
                ]
            }
        )
    published_change = (
        survey.published_at is not None and record_language != survey.record_language
    )
    survey.source_language = source_language
    survey.languages = [
        code
        for code, _ in settings.LANGUAGES
        if code in languages and code != source_language
    ]
    survey.record_language = record_language
    if published_change:
        survey.revision += 1
    survey.save()
    return survey


def _clean(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


@transaction.atomic
def translations_update(
    *,
    survey: Survey,
    user,
    language: str,
    survey_texts: Mapping[str, str],
    question_texts: Mapping[int, Mapping[str, object]],
) -> Survey:
    """Store ``language``'s texts for the survey and its questions.

    ``question_texts`` maps a question's id to its texts; ``options`` is the
    list of its answer labels, which must have as many labels as the source
    (empty ones stay missing): a report is an option's index, so a translation
    can never add, drop or reorder options.  Empty texts are stored as missing.
    Refused, with nothing changed, for a language the survey isn't offered in.
    """
    access.require(survey, user, access.EDIT)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    if language not in survey.languages:
        raise ValidationError(
            gettext(
                "This survey isn't offered in %(language)s; add the language first. "
                "Nothing was changed."
            )
            % {"language": translations.language_name(language)}
        )
    questions = list(survey.questions.select_for_update())
    problems = []
    updated: list[Question] = []
    for number, question in enumerate(questions, start=1):
        given = question_texts.get(question.pk)
        if given is None:
            continue
        source = translations.question_source(question)
        texts: dict[str, object] = {}
        for name in source:
            if name == "options":
                labels = given.get("options", [])
                if not isinstance(labels, list) or len(labels) != len(
                    question.options or ()
                ):
                    count = len(question.options or ())
                    problems.append(
                        ngettext(
                            "Question %(number)s (“%(text)s”) has %(count)s answer "
                            "option; a translation gives a label for each, in the "
                            "same order.",
                            "Question %(number)s (“%(text)s”) has %(count)s answer "
                            "options; a translation gives a label for each, in the "
                            "same order.",
                            count,
                        )
                        % {"number": number, "text": question.text, "count": count}
                    )
                    continue
                texts["options"] = [_clean(label) for label in labels]
            elif value := _clean(given.get(name)):
                texts[name] = value
        question.translations = {**question.translations, language: texts}
        updated.append(question)
    if problems:
        raise ValidationError([*problems, gettext("Nothing was changed.")])
    Question.objects.bulk_update(updated, ["translations"])
    survey.translations = {
        **survey.translations,
        language: {
            name: text
            for name, _ in translations.SURVEY_TEXTS
            if (text := _clean(survey_texts.get(name)))
        },
    }
    survey.save()  # a new updated_at: the answer page is rendered again
    return survey
