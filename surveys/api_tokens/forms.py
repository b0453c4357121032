"""The form that makes a token: a name and how many days it works."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from surveys.api_tokens.services import NAME_MAX


class ApiTokenForm(forms.Form):
    name = forms.CharField(label=_("Name (what the token is for)"), max_length=NAME_MAX)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        most = settings.API_TOKEN_MAX_DAYS
        self.fields["days"] = forms.IntegerField(
            label=gettext("Valid for (days)"),
            min_value=1,
            max_value=most,
            initial=settings.API_TOKEN_DEFAULT_DAYS,
            help_text=gettext(
                "From 1 to %(most)s days; after that the API refuses the token "
                "and you make a new one."
            )
            % {"most": most},
        )
