"""The bins form: a researcher's cut points for one number question."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from surveys.analysis.results import bins


class BinsForm(forms.Form):
    """``cuts``: cut points in answer units, e.g. "0, 10, 20, 40".

    Checked against the question's possible answers (``values``): numbers,
    strictly increasing, within the range, at most 20 bins, no empty bin.
    """

    cuts = forms.CharField(
        label=_("Group answers into bins: cut points"),
        max_length=400,
        help_text=_(
            "Numbers separated by commas, increasing, within the answer range, for "
            "example 0, 10, 20, 40 (bins 0–9, 10–19 and 20–40). At most 20 bins."
        ),
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )

    def __init__(self, *args: Any, values: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.values = values

    def clean_cuts(self) -> list[float]:
        try:
            return bins.parse_cuts(self.cleaned_data["cuts"], self.values)
        except ValueError as error:
            message = str(error)
            raise forms.ValidationError(message[:1].upper() + message[1:]) from None
