"""A survey's languages: the researcher's texts in each language it is offered in.

Shape: one JSON field per object (``Survey.translations`` and
``Question.translations``), ``{language: {field: text}}``, rather than a table
of rows keyed by (object, language).  Chosen because

* a translation belongs to its object and goes wherever the object goes:
  duplicating a survey, exporting and importing its definition and deleting it
  carry the translations with no extra query or table to keep in step;
* one query loads a survey's questions with every language (the answer page
  reads nothing else), and nothing ever searches by language.

What a respondent reads that the researcher wrote, per language:

* survey: ``title``, ``description``, ``consent_text``;
* question: ``text`` (for a grid row: the row's ``item``, the grid's stem is
  ``grid``), ``help_text``, ``section_title``, ``section_intro`` and
  ``options`` (the labels, scale labels included, in the source's count and
  order: a report is an option's *index*, so a translation can never reorder,
  add or drop an option).  A yes/no question's "Yes" and "No" are the site's
  own words, translated with the pages (docs/translations.md), not per survey.

A text is *missing* in a language when the source has it and the translation
is empty.  Publishing is refused while a declared language misses anything
(``publish_problems``); a language that becomes incomplete later (a question
added to a live survey) is not offered to respondents until it is completed.

Display logic, specs and ε are the source's: translation only swaps texts, in
memory, on the instances loaded for one page (``localize_survey``); such an
instance refuses to be saved (``models.refuse_localized``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db.models import prefetch_related_objects
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation.trans_real import parse_accept_lang_header

from surveys.authoring.models import (
    GRID_SEPARATOR,
    LOCALIZED_MARK,
    Question,
    Survey,
)

SURVEY_TEXTS: tuple[tuple[str, str], ...] = (
    ("title", gettext_lazy("Title")),
    ("description", gettext_lazy("Description")),
    ("consent_text", gettext_lazy("Consent text")),
)
QUESTION_TEXTS: tuple[tuple[str, str], ...] = (
    ("section_title", gettext_lazy("Section title")),
    ("section_intro", gettext_lazy("Section introduction")),
    ("text", gettext_lazy("Question text")),
    ("help_text", gettext_lazy("Help text")),
)
GRID_STEM = ("grid", gettext_lazy("Grid question (shared by its rows)"))
GRID_ITEM = ("item", gettext_lazy("Row"))


def language_name(code: str) -> str:
    """The name of a language in settings.LANGUAGES, in the active language
    (its code if none)."""
    from django.utils.translation import get_language_info

    try:
        return str(get_language_info(code)["name_translated"])
    except KeyError:
        return code


def declared_languages(survey: Survey) -> list[str]:
    """The source language, then every other language the survey is offered in."""
    return [survey.source_language] + [
        code for code in survey.languages if code != survey.source_language
    ]


def is_grid_row(question: Question) -> bool:
    """A grid row's text is "stem — item"; its translation has both parts."""
    return bool(question.grid) and question.text.startswith(
        question.grid + GRID_SEPARATOR
    )


def question_source(question: Question) -> dict[str, object]:
    """The question's source texts under their translation keys."""
    texts: dict[str, object] = {
        name: getattr(question, name) for name, _ in QUESTION_TEXTS
    }
    if is_grid_row(question):
        texts["grid"] = question.grid
        texts["item"] = question.grid_item
        del texts["text"]
    if question.kind != Question.Kind.YES_NO:  # "Yes" and "No" are the site's own
        texts["options"] = list(question.options or ())
    return texts


def _label(name: str) -> str:
    return dict((*QUESTION_TEXTS, GRID_STEM, GRID_ITEM)).get(name, name)


def question_missing(question: Question, language: str) -> list[str]:
    """The labels of the question's texts that ``language`` lacks."""
    given = question.translations.get(language, {})
    missing = []
    for name, source in question_source(question).items():
        if name == "options":
            labels = given.get("options") or []
            wanted = len(source)  # type: ignore[arg-type]
            done = sum(1 for label in labels[:wanted] if str(label).strip())
            if wanted and (len(labels) != wanted or done != wanted):
                missing.append(
                    gettext("answer labels (%(done)d of %(wanted)d translated)")
                    % {"done": done, "wanted": wanted}
                )
        elif source and not str(given.get(name, "")).strip():
            missing.append(_label(name).lower())
    return missing


def survey_missing(
    survey: Survey, questions: Sequence[Question], language: str
) -> list[str]:
    """Every text ``language`` lacks, each named so the researcher finds it:
    "Title", "Question 3 (“…”): help text"."""
    if language == survey.source_language:
        return []
    given = survey.translations.get(language, {})
    missing = [
        str(label)
        for name, label in SURVEY_TEXTS
        if getattr(survey, name) and not str(given.get(name, "")).strip()
    ]
    for number, question in enumerate(questions, start=1):
        lacks = question_missing(question, language)
        if lacks:
            missing.append(
                gettext("Question %(number)d (“%(text)s”): %(missing)s")
                % {"number": number, "text": question.text, "missing": ", ".join(lacks)}
            )
    return missing


def publish_problems(survey: Survey, questions: Sequence[Question]) -> list[str]:
    """Why the survey can't be published in its declared languages ([]: it can)."""
    problems = []
    for language in survey.languages:
        missing = survey_missing(survey, questions, language)
        if missing:
            problems.append(
                gettext(
                    "The %(language)s translation is incomplete; missing: "
                    "%(missing)s. Complete it on the Languages page, or remove the "
                    "language."
                )
                % {"language": language_name(language), "missing": "; ".join(missing)}
            )
    return problems


def offered_languages(survey: Survey, questions: Sequence[Question]) -> list[str]:
    """The languages respondents may read the survey in: the source, then each
    declared language whose translation is complete."""
    return [
        code
        for code in declared_languages(survey)
        if not survey_missing(survey, questions, code)
    ]


def _match(code: str, offered: Iterable[str]) -> str | None:
    code = code.lower()
    for candidate in offered:
        if code == candidate or code.split("-")[0] == candidate:
            return candidate
    return None


def chosen_language(request: HttpRequest, offered: Sequence[str]) -> str:
    """The language of a respondent's page: the one they picked (the language
    picker's cookie) if the survey is offered in it, else the first of their
    browser's languages (Accept-Language, in its order of preference) that it
    is offered in, else the survey's source language (``offered[0]``)."""
    picked = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
    if picked and (found := _match(picked, offered)):
        return found
    header = request.headers.get("Accept-Language", "")
    for code, _ in parse_accept_lang_header(header):
        if code != "*" and (found := _match(code, offered)):
            return found
    return offered[0]


@dataclass(frozen=True)
class Localized:
    """A survey loaded for one page in one language."""

    survey: Survey
    language: str
    offered: list[str]


def _apply(instance: object, texts: dict, names: Iterable[str]) -> None:
    for name in names:
        value = texts.get(name)
        if isinstance(value, str) and value.strip():
            setattr(instance, name, value)


def localize_question(question: Question, language: str) -> None:
    """Put ``language``'s texts on this loaded question, in memory only."""
    texts = question.translations.get(language, {})
    grid_row = is_grid_row(question)
    _apply(question, texts, ("help_text", "section_title", "section_intro"))
    if grid_row:
        stem = texts.get("grid") or question.grid
        item = texts.get("item") or question.grid_item
        question.grid = stem
        question.text = f"{stem}{GRID_SEPARATOR}{item}"
    else:
        _apply(question, texts, ("text",))
    labels = texts.get("options")
    if (
        question.kind != Question.Kind.YES_NO
        and isinstance(labels, list)
        and len(labels) == len(question.options or ())
        and all(isinstance(label, str) and label.strip() for label in labels)
    ):
        question.options = list(labels)
    setattr(question, LOCALIZED_MARK, language)


def localize_survey(survey: Survey, language: str | None = None) -> Localized:
    """The survey and its questions (``survey.questions.all()`` afterwards gives
    these instances, loaded once) with the texts of ``language`` if the survey
    is offered in it, else of its source language.  Only texts change, in
    memory: specs, options' order, display logic and ε are untouched, and a
    localized instance refuses to be saved."""
    prefetch_related_objects([survey], "questions")
    questions = list(survey.questions.all())
    offered = offered_languages(survey, questions)
    if language not in offered:
        language = offered[0]
    survey.offered_languages = offered  # type: ignore[attr-defined]
    if language != survey.source_language:
        _apply(survey, survey.translations.get(language, {}), dict(SURVEY_TEXTS))
        for question in questions:
            localize_question(question, language)
        setattr(survey, LOCALIZED_MARK, language)
    return Localized(survey=survey, language=language, offered=offered)


def language_for_request(request: HttpRequest, survey: Survey) -> str:
    """The language this respondent reads ``survey`` in (``chosen_language``
    among those it is offered in), changing nothing."""
    questions = list(Question.objects.filter(survey_id=survey.pk))
    return chosen_language(request, offered_languages(survey, questions))


def localize_for_request(request: HttpRequest, survey: Survey) -> Localized:
    """Localize ``survey`` for this respondent (``chosen_language``) and make
    that the language of the whole page: chrome and device wording follow it."""
    from django.utils import translation

    prefetch_related_objects([survey], "questions")
    offered = offered_languages(survey, list(survey.questions.all()))
    localized = localize_survey(survey, chosen_language(request, offered))
    translation.activate(localized.language)
    request.LANGUAGE_CODE = localized.language
    return localized
