"""Builder forms for a survey's languages: which ones, and each one's texts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import get_language_info, gettext
from django.utils.translation import gettext_lazy as _

from surveys.authoring import translations
from surveys.authoring.models import Question, Survey

# Each name in the active language, so the choices are lazy.
LANGUAGE_CHOICES = [
    (code, get_language_info(code)["name_translated"]) for code, _ in settings.LANGUAGES
]


class LanguagesForm(forms.Form):
    """The source language, the others offered, and the recorded-language field."""

    source_language = forms.ChoiceField(
        choices=LANGUAGE_CHOICES,
        label=_("Language the survey is written in"),
        help_text=_(
            "Respondents whose language the survey isn't offered in read it in "
            "this one."
        ),
    )
    languages = forms.MultipleChoiceField(
        choices=LANGUAGE_CHOICES,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=_("Also offered in"),
        help_text=_(
            "Respondents read the survey in the language they pick, or their "
            "browser's if it is offered. A language is offered once every text is "
            "translated; publishing is refused until then."
        ),
    )
    record_language = forms.BooleanField(
        required=False,
        label=_(
            "Record each response's language (an unprotected field: it tells "
            "something about the respondent)"
        ),
        help_text=_(
            "Off: nothing stored says which language a respondent read. On: "
            "the language is stored with each response, shown on the consent "
            "page, and exported as a column."
        ),
    )

    def __init__(self, *args: Any, survey: Survey, **kwargs: Any) -> None:
        kwargs.setdefault(
            "initial",
            {
                "source_language": survey.source_language,
                "languages": survey.languages,
                "record_language": survey.record_language,
            },
        )
        super().__init__(*args, **kwargs)
        if survey.published_at is not None:
            self.fields["source_language"].disabled = True
            self.fields["source_language"].help_text = _(
                "Fixed once the survey is published."
            )


@dataclass
class Row:
    """One source text beside its translation field."""

    source: str
    field: forms.BoundField


@dataclass
class Group:
    """A heading (the survey, or one question) and its rows."""

    heading: str
    rows: list[Row] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def _text_field(
    label: str, source: str, initial: str, key: str, language: str
) -> forms.CharField:
    """A translation field, in ``language``, described by its source text."""
    long = len(source) > 120 or "\n" in source
    attrs = {"lang": language, "aria-describedby": f"id_{key}-source"}
    return forms.CharField(
        label=label,
        required=False,
        initial=initial,
        max_length=None if long else 500,
        widget=forms.Textarea(attrs={**attrs, "rows": 3})
        if long
        else forms.TextInput(attrs=attrs),
        strip=True,
    )


def _grid_heads(questions: list[Question]) -> dict[int, int]:
    """Each grid row's id -> the id of the first row of its run (rows sharing
    the grid's stem and scale show those once and share their translation)."""
    heads: dict[int, int] = {}
    previous: tuple | None = None
    head = 0
    for question in questions:
        key = (
            (question.grid, tuple(question.options))
            if translations.is_grid_row(question)
            else None
        )
        if key is None or key != previous:
            head = question.pk
        heads[question.pk] = head
        previous = key
    return heads


class TranslationForm(forms.Form):
    """Every source text of the survey beside a field for ``language``'s text.

    Field names: ``survey_<name>``, ``q<id>_<name>`` and ``q<id>_option_<i>``.
    A grid's stem and scale labels are asked once, on its first row.
    """

    def __init__(
        self, *args: Any, survey: Survey, language: str, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.survey = survey
        self.language = language
        self.questions = list(survey.questions.all())
        self.heads = _grid_heads(self.questions)
        name = translations.language_name(language)
        given = survey.translations.get(language, {})
        self._layout: list[tuple[str, list[tuple[str, str]], Question | None]] = []
        survey_rows = []
        for text_name, label in translations.SURVEY_TEXTS:
            source = getattr(survey, text_name)
            if source:
                key = f"survey_{text_name}"
                self.fields[key] = _text_field(
                    gettext("%(text)s in %(language)s")
                    % {"text": label, "language": name},
                    source,
                    given.get(text_name, ""),
                    key,
                    language,
                )
                survey_rows.append((source, key))
        self._layout.append((gettext("Survey"), survey_rows, None))
        for number, question in enumerate(self.questions, start=1):
            rows = []
            mine = question.translations.get(language, {})
            shared = self.heads[question.pk] == question.pk
            for text_name, source in translations.question_source(question).items():
                if text_name == "options":
                    if not shared:
                        continue
                    labels = list(mine.get("options") or [])
                    for index, option in enumerate(source):  # type: ignore[arg-type]
                        key = f"q{question.pk}_option_{index}"
                        initial = labels[index] if index < len(labels) else ""
                        self.fields[key] = _text_field(
                            gettext(
                                "Answer %(index)d of question %(number)d in "
                                "%(language)s"
                            )
                            % {"index": index + 1, "number": number, "language": name},
                            option,
                            initial,
                            key,
                            language,
                        )
                        rows.append((option, key))
                    continue
                if not source or (text_name == "grid" and not shared):
                    continue
                label = dict(
                    (
                        *translations.QUESTION_TEXTS,
                        translations.GRID_STEM,
                        translations.GRID_ITEM,
                    )
                )[text_name]
                key = f"q{question.pk}_{text_name}"
                self.fields[key] = _text_field(
                    gettext("%(text)s of question %(number)d in %(language)s")
                    % {"text": label, "number": number, "language": name},
                    str(source),
                    mine.get(text_name, ""),
                    key,
                    language,
                )
                rows.append((str(source), key))
            self._layout.append(
                (gettext("Question %(number)d") % {"number": number}, rows, question)
            )

    def groups(self) -> list[Group]:
        """The form laid out for the page: each group's source texts beside their
        fields, and what the stored translation still misses."""
        out = []
        for heading, rows, question in self._layout:
            missing = (
                translations.question_missing(question, self.language)
                if question is not None
                else [
                    label.lower()
                    for text_name, label in translations.SURVEY_TEXTS
                    if getattr(self.survey, text_name)
                    and not self.survey.translations.get(self.language, {}).get(
                        text_name
                    )
                ]
            )
            out.append(
                Group(
                    heading=heading,
                    rows=[Row(source=source, field=self[key]) for source, key in rows],
                    missing=missing,
                )
            )
        return out

    def survey_texts(self) -> dict[str, str]:
        """The survey's texts as entered."""
        return {
            name: self.cleaned_data.get(f"survey_{name}", "")
            for name, _ in translations.SURVEY_TEXTS
        }

    def question_texts(self) -> dict[int, dict[str, object]]:
        """Each question's texts as entered; a grid row takes its stem and scale
        labels from the first row of its grid."""
        data = self.cleaned_data
        out: dict[int, dict[str, object]] = {}
        for question in self.questions:
            head = self.heads[question.pk]
            texts: dict[str, object] = {}
            for name in translations.question_source(question):
                if name == "options":
                    texts["options"] = [
                        data.get(f"q{head}_option_{index}", "")
                        for index in range(len(question.options or ()))
                    ]
                elif name == "grid":
                    texts["grid"] = data.get(f"q{head}_grid", "")
                else:
                    texts[name] = data.get(f"q{question.pk}_{name}", "")
            out[question.pk] = texts
        return out
