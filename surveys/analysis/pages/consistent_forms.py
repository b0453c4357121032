"""The consistent-estimate form: which method the survey's results use."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from surveys.analysis.models import ResultsSettings


class ConsistentMethodForm(forms.Form):
    """``method``: one of ``ResultsSettings.Consistent`` (radio buttons)."""

    method = forms.ChoiceField(
        label=_("Consistent estimate"),
        choices=ResultsSettings.Consistent.choices,
        widget=forms.RadioSelect,
        help_text=_(
            "Both turn the unbiased estimates into shares that are never negative "
            "and add up to 100%. Changing it recomputes the results from the same "
            "reports."
        ),
    )
