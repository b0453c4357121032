"""The builder's planning panel (sample size and power for a question)."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _


class PlanningForm(forms.Form):
    """The builder's planning panel: a target margin, or a difference to detect.

    Bound with the prefix ``plan`` from the question form's own data, so the
    live preview and the "Update preview" button both carry it.  Every field is
    optional: a blank one takes its initial value, so a page without the panel
    plans at ±5 points and 20% against 25% at 80% power.
    """

    prefix = "plan"
    DEFAULTS: ClassVar[dict[str, float]] = {
        "margin": 5.0,
        "baseline": 20.0,
        "alternative": 25.0,
        "power": 80.0,
    }

    margin = forms.FloatField(
        label=_("Target margin of error (percentage points)"),
        required=False,
        min_value=0.1,
        max_value=50,
        initial=5,
        help_text=_(
            # Translators: xgettext:no-python-format
            "The half-width of a 95% interval on an answer's share, in "
            "percentage points; for a scale or number question, in percent of "
            "the answer range."
        ),
        widget=forms.NumberInput(attrs={"step": "0.1", "inputmode": "decimal"}),
    )
    baseline = forms.FloatField(
        label=_("Share expected without the effect (%)"),
        required=False,
        min_value=0,
        max_value=100,
        initial=20,
        widget=forms.NumberInput(attrs={"step": "0.1", "inputmode": "decimal"}),
    )
    alternative = forms.FloatField(
        label=_("Share to detect (%)"),
        required=False,
        min_value=0,
        max_value=100,
        initial=25,
        help_text=_(
            "Yes/no: the share answering Yes; other choice questions: the "
            "share choosing the first option."
        ),
        widget=forms.NumberInput(attrs={"step": "0.1", "inputmode": "decimal"}),
    )
    power = forms.FloatField(
        label=_("Power (%)"),
        required=False,
        min_value=50,
        max_value=99.9,
        initial=80,
        help_text=_("The chance of detecting the difference (one-sided test at 5%)."),
        widget=forms.NumberInput(attrs={"step": "0.1", "inputmode": "decimal"}),
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name, default in self.DEFAULTS.items():
            if cleaned.get(name) is None and name not in self.errors:
                cleaned[name] = default
        if (
            "baseline" not in self.errors
            and "alternative" not in self.errors
            and cleaned["baseline"] == cleaned["alternative"]
        ):
            self.add_error(
                "alternative",
                _("The share to detect must differ from the expected one."),
            )
        return cleaned

    def targets(self) -> dict[str, float]:
        """The planning targets as fractions; the defaults if the form is unbound
        or invalid (its errors are shown next to its fields)."""
        values = dict(self.DEFAULTS)
        if self.is_bound and self.is_valid():
            values.update({k: self.cleaned_data[k] for k in self.DEFAULTS})
        return {k: v / 100 for k, v in values.items()}
