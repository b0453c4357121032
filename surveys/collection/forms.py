"""The respondent's form, built from a survey.

Privacy invariant: a private question's true-answer inputs are rendered with
no ``name`` attribute, so the browser can never submit them; the field behind
them reads nothing from the request.  What is submitted for a private question
is the report the page's script computed on the device (a hidden field).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django import forms
from django.forms.boundfield import BoundField
from django.utils.formats import number_format
from django.utils.translation import (
    gettext,
    gettext_lazy,
    ngettext,
)

from surveys.authoring import display_logic
from surveys.authoring.kinds import facts
from surveys.authoring.models import Question, Survey
from surveys.collection.questions import (
    CHOICE_KINDS,
    PRIVATE_KINDS,
    grid,
    most_selections,
    plain_decimal,
    shown_choices,
)
from surveys.collection.services import ResponseIn, SentReport, link_value_problem
from surveys.expected_fields import CSRF_FIELD, ExpectedFieldsMixin

MAX_REPORT_CHARS = 65_536
# A numeric question's low, high and step have at most this many decimal places.
GRID_PLACES = Question._meta.get_field("numeric_step").decimal_places

NO_REPORT = gettext_lazy(
    "No randomized report arrived for “%(question)s”. This page's script "
    "randomizes your answer on your device, so it needs JavaScript; nothing "
    "was stored."
)


NOT_SHOWN_BUT_SENT = gettext_lazy(
    "“%(question)s” was not shown (it is shown only for some answers to "
    "“%(driver)s”), yet something arrived for it; nothing was stored. Reload the "
    "page and answer again."
)
SKIPPED_AND_ANSWERED = gettext_lazy(
    "“%(question)s” arrived both answered and marked “Prefer not to answer”; "
    "nothing was stored. Choose one of the two."
)
SKIP_NOT_ALLOWED = gettext_lazy(
    "“%(question)s” needs an answer: it is not optional, so it cannot be "
    "skipped; nothing was stored."
)
PLEASE_ANSWER = gettext_lazy("Please answer “%(question)s”.")
TRUE_ANSWER_SENT = gettext_lazy(
    "Nothing was stored: the answer to “%(question)s” arrived as given, but it "
    "is a protected question, so only its randomized report may be sent. Reload "
    "the page and answer again."
)
# The signed "page loaded while open" stamp (lifecycle's grace period): read by
# the view, never stored.
OPEN_STAMP_FIELD = "opened"


def range_words(low: Decimal, high: Decimal, step: Decimal) -> str:
    """A numeric question's range and step in words, in the active language,
    each figure exact (written out in full, with the language's decimal mark)."""
    low_, high_, step_ = (number_format(plain_decimal(v)) for v in (low, high, step))
    return gettext("a number from %(low)s to %(high)s, in steps of %(step)s") % {
        "low": low_,
        "high": high_,
        "step": step_,
    }


SKIP_MARKER = "skipped"


class SkipField(forms.BooleanField):
    """The "Prefer not to answer" marker of an optional question.

    It is the only thing the device sends for a skipped question: no report,
    nothing derived from an answer.  The marker itself is visible to the server.
    """

    widget = forms.CheckboxInput

    def __init__(self, question: Question, **kwargs: Any) -> None:
        super().__init__(
            required=False,
            label=gettext_lazy("Prefer not to answer"),
            widget=forms.CheckboxInput(
                attrs={"value": SKIP_MARKER, "class": "skip-marker"},
                check_test=lambda value: value == SKIP_MARKER,
            ),
            **kwargs,
        )
        self.question = question


class AnswerInputs(forms.Widget):
    """Radio or checkbox inputs, each with a label
    (``templates/collection/widgets/answer_inputs.html``).

    With ``named=False`` (private questions) the inputs get no ``name``, so the
    browser never submits them; the page's script reads them on the device.
    """

    template_name = "collection/widgets/answer_inputs.html"

    def __init__(
        self,
        choices: list[tuple[int, str]],
        *,
        multiple: bool,
        named: bool,
        most: int | None = None,
    ) -> None:
        super().__init__()
        self.choices = choices
        self.multiple = multiple
        self.named = named
        self.most = most  # multi-select: the most options one may tick

    def get_context(self, name: str, value: Any, attrs: Any) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        selected = {str(v) for v in (value if isinstance(value, list) else [value])}
        context["widget"].update(
            {
                "id": (attrs or {}).get("id") or f"id_{name}",
                "input_type": "checkbox" if self.multiple else "radio",
                "named": self.named,
                "required": self.named and not self.multiple,
                # Unnamed radios are not grouped by the browser: each says
                # where it sits in its group, for assistive technology.
                "positioned": not self.named and not self.multiple,
                "options": [
                    {
                        "value": choice_value,
                        "label": label,
                        "checked": self.named and str(choice_value) in selected,
                    }
                    for choice_value, label in self.choices
                ],
                "hint": self._hint() if self.multiple else "",
                "max_selections": self.most if self.multiple else None,
            }
        )
        return context

    def _hint(self) -> str:
        """How many options a multi-select takes, in words."""
        if not self.most:
            return gettext("Choose any number of options, or none.")
        return ngettext(
            "Choose up to %(count)s option, or none.",
            "Choose up to %(count)s options, or none.",
            self.most,
        ) % {"count": number_format(self.most)}

    def value_from_datadict(self, data, files, name) -> Any:
        if not self.named:
            return None  # never read a true answer, even if someone sends one
        if self.multiple:
            return data.getlist(name) if hasattr(data, "getlist") else data.get(name)
        return data.get(name)

    def value_omitted_from_data(self, data, files, name) -> bool:
        return self.named and name not in data

    def id_for_label(self, id_: str) -> str:
        return f"{id_}_0" if id_ else id_


class NumberOnDevice(forms.Widget):
    """A private numeric answer: a text box and a slider, neither with a name
    (``templates/collection/widgets/number_on_device.html``).

    The slider moves over the grid's levels (0 … m−1) and writes the exact
    value into the text box; the page's script reads the text box, turns the
    value into its level index with exact decimal arithmetic, and randomizes
    that.  The range and step are shown in the label.
    """

    template_name = "collection/widgets/number_on_device.html"

    def __init__(self, low: Decimal, high: Decimal, step: Decimal) -> None:
        super().__init__()
        self.low, self.high, self.step = low, high, step
        self.levels = int((high - low) / step) + 1

    def range_words(self) -> str:
        return range_words(self.low, self.high, self.step)

    def get_context(self, name: str, value: Any, attrs: Any) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        # Exact figures as text (never localized: the device parses them).
        low, high, step = (plain_decimal(v) for v in (self.low, self.high, self.step))
        context["widget"].update(
            {
                "id": (attrs or {}).get("id") or f"id_{name}",
                "low": low,
                "high": high,
                "step": step,
                "top": str(self.levels - 1),
                "middle": str((self.levels - 1) // 2),
                "answer_words": gettext("Your answer: %(range)s")
                % {"range": self.range_words()},
                "slide_words": gettext("Or slide to choose"),
                "range_words": gettext(
                    "From %(low)s to %(high)s; each step is %(step)s."
                )
                % {
                    "low": number_format(low),
                    "high": number_format(high),
                    "step": number_format(step),
                },
            }
        )
        return context

    def value_from_datadict(self, data, files, name) -> Any:
        return None  # never read a true answer, even if someone sends one

    def value_omitted_from_data(self, data, files, name) -> bool:
        return False

    def id_for_label(self, id_: str) -> str:
        return f"{id_}_value" if id_ else id_


class DeviceOnlyField(forms.Field):
    """The true answer of a private question: shown, never received."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)

    def clean(self, value: Any) -> None:
        return None


LINK_PREFIX = "link_"


def link_inputs(survey: Survey, values: Mapping[str, str]) -> list[BoundField]:
    """The hidden inputs carrying ``values`` of the survey's link fields, as
    ``ResponseForm.link_inputs`` renders them (without building the whole form)."""
    form = forms.Form()
    for name in survey.link_fields:
        form.fields[f"{LINK_PREFIX}{name}"] = LinkValueField(
            name, survey.link_fields, initial=values.get(name, "")
        )
    return [form[f"{LINK_PREFIX}{name}"] for name in survey.link_fields]


class LinkValueField(forms.CharField):
    """One link field's value (a URL parameter), carried as a hidden input."""

    widget = forms.HiddenInput

    def __init__(self, name: str, declared: list[str], **kwargs: Any) -> None:
        super().__init__(required=False, strip=False, **kwargs)
        self.link_name = name
        self.declared = declared

    def clean(self, value: Any) -> str:
        text = super().clean(value) or ""
        if text:
            problem = link_value_problem(self.link_name, text, self.declared)
            if problem:
                raise forms.ValidationError(
                    gettext("%(problem)s Nothing was stored.") % {"problem": problem}
                )
        return text


class ReportField(forms.CharField):
    """The JSON report the respondent's device computed for one question."""

    widget = forms.HiddenInput

    def __init__(self, question: Question, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", MAX_REPORT_CHARS)
        super().__init__(
            error_messages={
                "required": NO_REPORT % {"question": question.text},
                "max_length": f"The report for “{question.text}” is too long.",
            },
            strip=False,
            **kwargs,
        )
        self.question = question

    def clean(self, value: Any) -> Any:
        text = super().clean(value)
        if text == "" and not self.required:
            return None  # an optional question's report may be absent (skipped)
        try:
            return json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            raise forms.ValidationError(
                f"The report for “{self.question.text}” is not valid JSON; "
                "nothing was stored."
            ) from None


# One to three digits (not a lone 0), one mark, exactly three digits: "1.000"
# is a thousand in English and one in Spanish or French.
ONE_GROUP = re.compile(r"[+-]?[1-9][0-9]{0,2}[.,][0-9]{3}\Z")


class NumberInRangeField(forms.DecimalField):
    """A plain numeric answer: a number from the question's low to high, on its step.

    Checked with exact decimal arithmetic, the range first.  (Django's own step
    validator computes with floats: 1e309 made it fail with a server error.)
    """

    def __init__(self, question: Question, **kwargs: Any) -> None:
        bounds = grid(question)
        if bounds is None:
            raise ValueError(f"question {question.pk} has no numeric range")
        self.low, self.high, self.step = bounds
        messages = {
            "invalid": gettext("The answer to “%(question)s” must be %(allowed)s.")
            % {"question": question.text, "allowed": range_words(*bounds)}
        }
        super().__init__(
            error_messages={**messages, **kwargs.pop("error_messages", {})}, **kwargs
        )
        self.error_messages["out_of_range"] = messages["invalid"]

    def to_python(self, value: Any) -> Decimal | None:
        """The typed number, refusing (never guessing) a form that may carry
        thousands separators, as the device does (docs/device-languages.md,
        section 4): "1.000" where the grid has fewer than three decimals, or
        digits grouped with "_" (which Python's Decimal would read as 1000).
        A "," or a space was never a number here."""
        if value not in self.empty_values:
            text = str(value).strip()
            places = max(_decimal_places(self.low), _decimal_places(self.step))
            if "_" in text or (places < 3 and ONE_GROUP.match(text)):
                raise forms.ValidationError(
                    self.error_messages["invalid"], code="invalid"
                )
        return super().to_python(value)

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        attrs = super().widget_attrs(widget)
        attrs.update(
            min=plain_decimal(self.low),
            max=plain_decimal(self.high),
            step=plain_decimal(self.step),
        )
        return attrs

    def validate(self, value: Decimal | None) -> None:
        super().validate(value)  # required, finite
        if value in self.empty_values:
            return
        # Bounded by the range and the places the grid can have, the step check
        # below is exact (well within the 28 digits of decimal arithmetic).
        if (
            not self.low <= value <= self.high
            or _decimal_places(value) > GRID_PLACES
            or (value - self.low) % self.step
        ):
            raise forms.ValidationError(
                self.error_messages["out_of_range"], code="out_of_range"
            )


def _decimal_places(value: Decimal) -> int:
    """Digits after the point, trailing zeros aside (no rounding, any exponent)."""
    _, digits, exponent = value.as_tuple()
    if not any(digits):
        return 0
    trailing = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return max(0, -(int(exponent) + trailing))


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed in a report")


@dataclass
class QuestionBlock:
    """One question as the template lays it out."""

    question: Question
    number: int
    answer: BoundField
    hidden: list[BoundField]
    skip: BoundField | None = None
    # A row of a grid of scale items shown together (see ``sections``): the
    # first row opens the grid, the last closes it.
    in_grid: bool = False
    grid_start: bool = False
    grid_end: bool = False

    @property
    def protected(self) -> bool:
        return self.question.is_private

    @property
    def typed(self) -> bool:
        """The answer is a number typed in a box (its kind's answers are a
        grid), so it has a label of its own."""
        return facts(self.question.kind).grid

    @property
    def numeric_words(self) -> str:
        """The range and step in words, for numeric questions ("" otherwise)."""
        bounds = grid(self.question) if facts(self.question.kind).grid else None
        if bounds is None:
            return ""
        return range_words(*bounds)


def _grid_key(question: Question) -> tuple | None:
    """What rows of one grid share (None: not a grid row): the stem and scale of
    a protected scale question without display logic."""
    if not question.grid or not facts(question.kind).ordered:
        return None
    if not question.is_private or question.show_if:
        return None
    return (question.grid, tuple(question.options))


def _mark_grids(blocks: list[QuestionBlock]) -> None:
    """Mark runs of two or more consecutive rows of the same grid."""
    start = 0
    while start < len(blocks):
        key = _grid_key(blocks[start].question)
        end = start + 1
        while (
            key is not None
            and end < len(blocks)
            and _grid_key(blocks[end].question) == key
        ):
            end += 1
        if key is not None and end - start >= 2:
            for block in blocks[start:end]:
                block.in_grid = True
            blocks[start].grid_start = True
            blocks[end - 1].grid_end = True
        start = end


@dataclass
class SectionBlock:
    """The questions between two section breaks, shown as one page of the form."""

    number: int
    total: int
    title: str
    intro: str
    blocks: list[QuestionBlock]


class ResponseForm(ExpectedFieldsMixin, forms.Form):
    """Everything one respondent submits for one survey, and nothing else.

    The fields it expects are its own minus the true answers of protected
    questions (shown on the page, never received), plus the CSRF token and
    the open stamp; anything else posted is refused (``ExpectedFieldsMixin``).
    """

    also_expected = frozenset({CSRF_FIELD, OPEN_STAMP_FIELD})

    idempotency_key = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={
            "required": "The submission key is missing.",
            "invalid": "The submission key is not a UUID.",
        },
    )
    survey_revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)

    def clean_idempotency_key(self) -> Any:
        """Only a random (version 4) UUID is stored: the other versions carry a
        time or a machine's address (RFC 9562, section 5), which would link."""
        key = self.cleaned_data["idempotency_key"]
        if key.version != 4:
            raise forms.ValidationError(
                "The submission key must be a random (version 4) UUID."
            )
        return key

    def __init__(
        self,
        *args: Any,
        survey: Survey,
        link_values: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.survey = survey
        self.questions = list(survey.questions.all())
        self.fields["survey_revision"].initial = survey.revision
        self._add_question_fields(link_values)

    def _add_question_fields(self, link_values: Mapping[str, str] | None) -> None:
        """The link fields' and the questions' fields of ``self.survey``."""
        survey = self.survey
        for name in survey.link_fields:
            self.fields[f"{LINK_PREFIX}{name}"] = LinkValueField(
                name, survey.link_fields, initial=(link_values or {}).get(name, "")
            )
        for question in self.questions:
            if question.is_private:
                self._add_private(question)
            else:
                self._add_plain(question)
            if question.optional:
                self._add_skip(question)
            if question.show_if:
                self._make_conditional(question)

    # --- building -----------------------------------------------------------
    def _add_private(self, question: Question) -> None:
        if question.kind not in PRIVATE_KINDS:
            raise ValueError(
                f"question {question.pk} is a private {question.kind!r} question; "
                f"the browser can randomize only {sorted(PRIVATE_KINDS)}"
            )
        prefix = f"q{question.pk}"
        widget: forms.Widget
        if facts(question.kind).grid:
            bounds = grid(question)
            if bounds is None:
                raise ValueError(f"question {question.pk} has no numeric grid")
            widget = NumberOnDevice(*bounds)
        else:
            widget = AnswerInputs(
                shown_choices(question),
                multiple=facts(question.kind).several,
                named=False,
                most=most_selections(question),
            )
        self.fields[f"{prefix}_answer"] = DeviceOnlyField(
            label=question.text, widget=widget
        )
        self.fields[f"{prefix}_report"] = ReportField(question)
        self.fields[f"{prefix}_spec_revision"] = forms.IntegerField(
            widget=forms.HiddenInput, initial=question.spec_revision, min_value=1
        )

    def _add_skip(self, question: Question) -> None:
        """An optional question: its "Prefer not to answer" marker, and its
        report or answer no longer required (``clean`` checks one or the other)."""
        prefix = f"q{question.pk}"
        self.fields[f"{prefix}_skipped"] = SkipField(question)
        answer = f"{prefix}_report" if question.is_private else prefix
        self.fields[answer].required = False
        if question.is_private:
            self.fields[f"{prefix}_spec_revision"].required = False

    def _make_conditional(self, question: Question) -> None:
        """A question with display logic: required only when shown (``clean``)."""
        prefix = f"q{question.pk}"
        names = (
            [f"{prefix}_report", f"{prefix}_spec_revision"]
            if question.is_private
            else [prefix]
        )
        for name in names:
            self.fields[name].required = False

    def _sent_anything(self, question: Question) -> bool:
        prefix = f"q{question.pk}"
        names = [f"{prefix}_skipped"]
        names.append(f"{prefix}_report" if question.is_private else prefix)
        return any(
            value not in ("", None)
            for name in names
            for value in (
                self.data.getlist(name)
                if hasattr(self.data, "getlist")
                else [self.data.get(name)]
            )
        )

    def hidden(self) -> frozenset[int]:
        """Questions not shown to this respondent: their display logic's
        unprotected answer (as received) is not one that shows them."""
        data = getattr(self, "cleaned_data", {})
        skipped = {
            q.pk for q in self.questions if q.optional and data.get(f"q{q.pk}_skipped")
        }
        hidden: set[int] = set()
        for question in self.questions:  # in order: a driver comes first
            if not question.show_if:
                continue
            driver = question.show_if.get("question")
            answer = (
                None
                if driver in skipped or driver in hidden
                else data.get(f"q{driver}")
            )
            if answer in ("", []):
                answer = None
            if not display_logic.is_shown(question.show_if, answer):
                hidden.add(question.pk)
        return frozenset(hidden)

    def _check_conditions(self, data: dict[str, Any]) -> frozenset[int]:
        """Hidden questions arrive with nothing; shown required ones answered."""
        hidden = self.hidden()
        texts = {q.pk: q.text for q in self.questions}
        for question in self.questions:
            if not question.show_if:
                continue
            prefix = f"q{question.pk}"
            answer = f"{prefix}_report" if question.is_private else prefix
            if question.pk in hidden:
                if self._sent_anything(question):
                    self.add_error(
                        None,
                        NOT_SHOWN_BUT_SENT
                        % {
                            "question": question.text,
                            "driver": texts.get(question.show_if.get("question"), ""),
                        },
                    )
                continue
            if question.optional or answer in self.errors:
                continue
            given = data.get(answer) not in (None, "")
            if facts(question.kind).several and not question.is_private:
                continue  # no option ticked is an answer: "none of these"
            if not given:
                message = (
                    NO_REPORT % {"question": question.text}
                    if question.is_private
                    else PLEASE_ANSWER % {"question": question.text}
                )
                self.add_error(answer, message)
            elif question.is_private and data.get(f"{prefix}_spec_revision") is None:
                self.add_error(
                    f"{prefix}_spec_revision",
                    f"The report for “{question.text}” arrived without its spec "
                    "revision; nothing was stored. Reload the page and answer again.",
                )
        return hidden

    def expected_fields(self) -> set[str]:
        """Every field but the true answers of protected questions."""
        return {
            name
            for name, field in self.fields.items()
            if not isinstance(field, DeviceOnlyField)
        } | set(self.also_expected)

    def explained_unexpected(self, names: list[str]) -> list[str]:
        """A protected question's answer sent as given, or a skip marker for
        a question that is not optional, is refused in words of its own; an
        undeclared link field is worded by ``clean``."""
        questions = {}
        for question in self.questions:
            prefix = f"q{question.pk}"
            if question.is_private:
                questions[prefix] = questions[f"{prefix}_answer"] = (
                    TRUE_ANSWER_SENT,
                    question,
                )
            if not question.optional:
                questions[f"{prefix}_skipped"] = (SKIP_NOT_ALLOWED, question)
        rest = []
        for name in names:
            if name.startswith(LINK_PREFIX):
                continue
            if name in questions:
                message, question = questions[name]
                self.add_error(None, message % {"question": question.text})
            else:
                rest.append(name)
        return rest

    def link_inputs(self) -> list[Any]:
        """The hidden inputs carrying the link fields' values (bound fields)."""
        return [self[f"{LINK_PREFIX}{name}"] for name in self.survey.link_fields]

    def link_values(self) -> dict[str, str]:
        """The link fields' values this form carries (initial or posted), by name."""
        values = {}
        for name in self.survey.link_fields:
            bound = self[f"{LINK_PREFIX}{name}"]
            value = bound.value() if self.is_bound else bound.initial
            if value:
                values[name] = str(value)
        return values

    def clean(self) -> dict[str, Any]:
        """An optional question is answered or skipped, never both nor neither;
        a question hidden by display logic arrives with nothing at all."""
        data = super().clean()
        for key in self.data:
            if key.startswith(LINK_PREFIX) and key not in self.fields:
                self.add_error(
                    None,
                    f"This survey records no “{key[len(LINK_PREFIX) :]}” from its "
                    "link; nothing was stored.",
                )
        hidden = self._check_conditions(data)
        for question in self.questions:
            if not question.optional or question.pk in hidden:
                continue
            prefix = f"q{question.pk}"
            answer = f"{prefix}_report" if question.is_private else prefix
            skipped = data.get(f"{prefix}_skipped")
            source = data if question.is_private else self.data
            given = source.get(answer) not in (None, "")
            if skipped and given:
                self.add_error(
                    answer, SKIPPED_AND_ANSWERED % {"question": question.text}
                )
            elif not skipped and not given and answer not in self.errors:
                if question.is_private:
                    message = NO_REPORT % {"question": question.text}
                elif facts(question.kind).several:
                    continue  # no option ticked is an answer: "none of these"
                else:
                    message = gettext(
                        "Please answer “%(question)s” or choose “Prefer not to answer”."
                    ) % {"question": question.text}
                self.add_error(answer, message)
        return data

    def skipped(self) -> frozenset[int]:
        """The optional questions marked "Prefer not to answer"."""
        hidden = self.hidden()
        return frozenset(
            q.pk
            for q in self.questions
            if q.optional
            and q.pk not in hidden
            and self.cleaned_data.get(f"q{q.pk}_skipped")
        )

    def _add_plain(self, question: Question) -> None:
        name = f"q{question.pk}"
        required = {
            "required": PLEASE_ANSWER % {"question": question.text},
            "invalid_choice": gettext(
                "That is not one of the answers to “%(question)s”."
            )
            % {"question": question.text},
        }
        choices = shown_choices(question)
        if question.kind in CHOICE_KINDS:
            field: forms.Field = forms.TypedChoiceField(
                label=question.text,
                choices=choices,
                coerce=int,
                widget=AnswerInputs(choices, multiple=False, named=True),
                error_messages=required,
            )
        elif facts(question.kind).several:
            field = forms.TypedMultipleChoiceField(
                label=question.text,
                choices=choices,
                coerce=int,
                required=False,
                widget=AnswerInputs(
                    choices, multiple=True, named=True, most=most_selections(question)
                ),
                error_messages=required,
            )
        elif facts(question.kind).grid:
            field = NumberInRangeField(
                question, label=question.text, error_messages=required
            )
        else:
            raise ValueError(f"question kind {question.kind!r} is not supported")
        self.fields[name] = field

    # --- reading ------------------------------------------------------------
    def blocks(self) -> list[QuestionBlock]:
        """Questions in order, with their visible and hidden fields."""
        blocks = []
        for number, question in enumerate(self.questions, start=1):
            prefix = f"q{question.pk}"
            if question.is_private:
                answer = self[f"{prefix}_answer"]
                hidden = [self[f"{prefix}_report"], self[f"{prefix}_spec_revision"]]
            else:
                answer, hidden = self[prefix], []
            skip = self[f"{prefix}_skipped"] if question.optional else None
            blocks.append(QuestionBlock(question, number, answer, hidden, skip))
        return blocks

    def sections(self) -> list[SectionBlock]:
        """The questions split at their section breaks (one section if none).

        A survey whose first question has no break starts with an untitled
        section, named by its number.
        """
        groups: list[tuple[str, str, list[QuestionBlock]]] = []
        for block in self.blocks():
            question = block.question
            if question.section_title or not groups:
                groups.append((question.section_title, question.section_intro, []))
            groups[-1][2].append(block)
        for _, _, blocks in groups:
            _mark_grids(blocks)
        return [
            SectionBlock(
                number,
                len(groups),
                title or gettext("Section %(number)s") % {"number": number},
                intro,
                blocks,
            )
            for number, (title, intro, blocks) in enumerate(groups, start=1)
        ]

    def problems(self) -> list[str]:
        """Every validation error as one plain sentence."""
        messages: list[str] = []
        for name, errors in self.errors.items():
            for error in errors:
                if name in {"idempotency_key", "survey_revision"}:
                    messages.append(
                        gettext("%(error)s Reload the page and answer again.")
                        % {"error": error}
                    )
                else:
                    messages.append(str(error))
        return messages

    def response(self) -> ResponseIn:
        """The cleaned form as the ingestion service's input."""
        data = self.cleaned_data
        reports: dict[int, SentReport] = {}
        plain: dict[int, Any] = {}
        skipped = self.skipped()
        hidden = self.hidden()
        for question in self.questions:
            prefix = f"q{question.pk}"
            if question.pk in skipped or question.pk in hidden:
                continue  # only the marker (or nothing): no answer, no report
            if question.is_private:
                reports[question.pk] = SentReport(
                    spec_revision=data[f"{prefix}_spec_revision"],
                    payload=data[f"{prefix}_report"],
                )
            else:
                value = data[prefix]
                if facts(question.kind).grid:
                    value = str(value)
                plain[question.pk] = value
        key = data["idempotency_key"]
        return ResponseIn(
            idempotency_key=key if isinstance(key, uuid.UUID) else uuid.UUID(str(key)),
            survey_revision=data["survey_revision"],
            reports=reports,
            plain_answers=plain,
            skipped=skipped,
            link_values={
                name: data[f"{LINK_PREFIX}{name}"]
                for name in self.survey.link_fields
                if data.get(f"{LINK_PREFIX}{name}")
            },
        )

    def js_config(self) -> dict[str, Any]:
        """What the page's script needs: each private question's compiled spec."""
        return {
            "questions": [
                {
                    "id": q.pk,
                    "text": q.text,
                    "kind": q.kind,
                    "spec": q.spec,
                    # How the device words a forced-response spec (its figures
                    # come from the spec's weights either way).
                    "design": (q.design or {}).get("type", ""),
                    "spec_revision": q.spec_revision,
                    "answer_group": f"q{q.pk}_answer",
                    "report_field": f"q{q.pk}_report",
                    "max_selections": most_selections(q),
                    "optional": q.optional,
                    "skip_field": f"q{q.pk}_skipped" if q.optional else None,
                    "show_if": q.show_if,
                }
                for q in self.questions
                if q.is_private
            ],
            "plain": [q.pk for q in self.questions if not q.is_private],
            "plain_optional": [
                q.pk for q in self.questions if not q.is_private and q.optional
            ],
            # Display logic: question id → its condition on an unprotected answer.
            "logic": {str(q.pk): q.show_if for q in self.questions if q.show_if},
        }
