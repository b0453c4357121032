"""The answer form's fields for unprotected questions: choices, numbers, open
text, and the words beside "Other, please specify".

An unprotected answer is sent and stored as given (the respondent is told so
above "Send"): these are ordinary named form fields.  Typed words are never
randomized, whatever the question, since no mechanism randomizes text and a
sentence can identify its writer (docs/privacy.md).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext

from surveys.authoring.kinds import OTHER_TEXT_LIMIT, facts
from surveys.authoring.models import Question
from surveys.collection.answer_fields import (
    PLEASE_ANSWER,
    AnswerInputs,
    NumberInRangeField,
)
from surveys.collection.questions import (
    CHOICE_KINDS,
    most_selections,
    shown_choices,
    typed_text,
)

OTHER_SUFFIX = "_other"


def typed_limits(question: Question) -> tuple[int, bool] | None:
    """A free-text question's most characters and whether its answer may
    hold several lines (a limit above ``OTHER_TEXT_LIMIT``); None for a kind
    whose answer is not typed words."""
    kind = facts(question.kind)
    if not kind.free_text:
        return None
    return kind.text_limit, kind.text_limit > OTHER_TEXT_LIMIT


class TypedTextField(forms.CharField):
    """Words typed by the respondent, kept as typed (never stripped of inner
    spaces or lines), refused with a control character."""

    def __init__(self, *, lines: bool, **kwargs: Any) -> None:
        super().__init__(strip=False, **kwargs)
        self.lines = lines

    def clean(self, value: Any) -> str:
        text = super().clean(value) or ""
        if not text.strip():
            if self.required:
                raise forms.ValidationError(
                    self.error_messages["required"], code="required"
                )
            return ""
        try:
            return typed_text(text, lines=self.lines)
        except ValueError:
            raise forms.ValidationError(
                gettext("Use letters, digits and punctuation only."), code="invalid"
            ) from None


def plain_field(question: Question) -> forms.Field:
    """The field of one unprotected question's answer (named ``q<id>``)."""
    messages = {
        "required": PLEASE_ANSWER % {"question": question.text},
        "invalid_choice": gettext("That is not one of the answers to “%(question)s”.")
        % {"question": question.text},
    }
    kind = facts(question.kind)
    choices = shown_choices(question)
    if question.kind in CHOICE_KINDS:
        return forms.TypedChoiceField(
            label=question.text,
            choices=choices,
            coerce=int,
            widget=AnswerInputs(choices, multiple=False, named=True),
            error_messages=messages,
        )
    if kind.several:
        return forms.TypedMultipleChoiceField(
            label=question.text,
            choices=choices,
            coerce=int,
            required=False,
            widget=AnswerInputs(
                choices, multiple=True, named=True, most=most_selections(question)
            ),
            error_messages=messages,
        )
    if kind.grid:
        return NumberInRangeField(
            question, label=question.text, error_messages=messages
        )
    if (limits := typed_limits(question)) is not None:
        most, lines = limits
        attrs = {"maxlength": str(most), "autocomplete": "off"}
        widget = (
            forms.Textarea(attrs={**attrs, "rows": 5})
            if lines
            else forms.TextInput(attrs=attrs)
        )
        return TypedTextField(
            lines=lines,
            label=question.text,
            max_length=most,
            widget=widget,
            error_messages=messages,
        )
    raise ValueError(f"question kind {question.kind!r} is not supported")


def other_field(question: Question) -> TypedTextField:
    """The text box beside "Other, please specify" (named ``q<id>_other``):
    read only when "Other" is the answer."""
    return TypedTextField(
        lines=False,
        required=False,
        label=gettext("Please specify"),
        max_length=OTHER_TEXT_LIMIT,
        widget=forms.TextInput(
            attrs={
                "maxlength": str(OTHER_TEXT_LIMIT),
                "autocomplete": "off",
                "class": "other-text",
                "data-other-for": str(question.pk),
            }
        ),
    )
