"""The answer form's fields and widgets, one per kind of input.

Privacy invariant: a private question's true-answer inputs are rendered with
no ``name`` attribute, so the browser can never submit them; the field behind
them reads nothing from the request (``DeviceOnlyField``).  What is submitted
for a private question is the report the page's script computed on the device
(``ReportField``, a hidden field).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
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

from surveys.authoring.models import Question, Survey
from surveys.collection import missing
from surveys.collection.questions import (
    grid,
    plain_decimal,
)
from surveys.collection.services import link_value_problem

MAX_REPORT_CHARS = 65_536

# A numeric question's low, high and step have at most this many decimal places.
GRID_PLACES = Question._meta.get_field("numeric_step").decimal_places

NO_REPORT = gettext_lazy(
    "No randomized report arrived for “%(question)s”. This page's script "
    "randomizes your answer on your device, so it needs JavaScript; nothing "
    "was stored."
)

PLEASE_ANSWER = gettext_lazy("Please answer “%(question)s”.")


def range_words(low: Decimal, high: Decimal, step: Decimal) -> str:
    """A numeric question's range and step in words, in the active language,
    each figure exact (written out in full, with the language's decimal mark)."""
    low_, high_, step_ = (number_format(plain_decimal(v)) for v in (low, high, step))
    return gettext("a number from %(low)s to %(high)s, in steps of %(step)s") % {
        "low": low_,
        "high": high_,
        "step": step_,
    }


# The marker of "Prefer not to answer" (the box's value).
SKIP_MARKER = missing.DECLINED


class SkipInput(forms.CheckboxInput):
    """The "Prefer not to answer" box; what it reads is the marker as sent
    (``declined``, ``blank`` or the earlier ``skipped``), not a boolean."""

    def value_from_datadict(self, data, files, name) -> Any:
        return data.get(name, "")

    def value_omitted_from_data(self, data, files, name) -> bool:
        return name not in data

    def format_value(self, value: Any) -> None:
        return None  # the box always carries its own value, "declined"


class SkipField(forms.Field):
    """The skip marker of an optional question: "Prefer not to answer"
    (``declined``), or left blank (``blank``); cleaned to how it was left
    (``surveys.collection.missing``), or "" when nothing was sent.

    It is the only thing the device sends for a skipped question: no report,
    nothing derived from an answer.  The marker itself is visible to the server.
    """

    def __init__(self, question: Question, **kwargs: Any) -> None:
        super().__init__(
            required=False,
            label=gettext_lazy("Prefer not to answer"),
            widget=SkipInput(
                attrs={"value": missing.DECLINED, "class": "skip-marker"},
                check_test=lambda value: value == missing.DECLINED,
            ),
            **kwargs,
        )
        self.question = question

    def clean(self, value: Any) -> str:
        if value in (None, "", False):
            return ""
        if value not in missing.MARKERS:
            raise forms.ValidationError(
                f"The skip marker of “{self.question.text}” is {str(value)[:20]!r}; "
                f"allowed: {', '.join(sorted(missing.MARKERS))}. Nothing was stored."
            )
        return missing.MARKERS[value]


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
                # An optional question may be left blank: not required.
                "required": self.named and not self.multiple and self.is_required,
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
