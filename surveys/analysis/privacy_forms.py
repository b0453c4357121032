"""The privacy view's own form: the size of a group of related respondents."""

from __future__ import annotations

from django import forms

# Beyond this many related respondents the bound k·ε says nothing useful.
GROUP_SIZE_MAX = 1000


class GroupSizeForm(forms.Form):
    """``k``: how many respondents share one fact (a household, a team)."""

    k = forms.IntegerField(
        label="Related respondents (k)",
        min_value=1,
        max_value=GROUP_SIZE_MAX,
        required=False,
        help_text=f"A whole number from 1 to {GROUP_SIZE_MAX}.",
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def group_size(self) -> int | None:
        """The ``k`` asked for, or None (none asked, or refused with a message)."""
        if self.is_bound and self.is_valid():
            return self.cleaned_data.get("k")
        return None
