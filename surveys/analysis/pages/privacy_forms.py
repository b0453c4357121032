"""The privacy view's own form: the size of a group of related respondents."""

from __future__ import annotations

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

# Beyond this many related respondents the bound k·ε says nothing useful.
GROUP_SIZE_MAX = 1000


def _group_help() -> str:
    return gettext("A whole number from 1 to %(max)s.") % {"max": GROUP_SIZE_MAX}


class GroupSizeForm(forms.Form):
    """``k``: how many respondents share one fact (a household, a team)."""

    k = forms.IntegerField(
        label=_("Related respondents (k)"),
        min_value=1,
        max_value=GROUP_SIZE_MAX,
        required=False,
        help_text=lazy(_group_help, str)(),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def group_size(self) -> int | None:
        """The ``k`` asked for, or None (none asked, or refused with a message)."""
        if self.is_bound and self.is_valid():
            return self.cleaned_data.get("k")
        return None
