"""Researchers' invitation forms: how many links, a recipients file, an email's text."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy, pgettext_lazy

from surveys.authoring.forms import add_validation_errors
from surveys.invitations.mailings import validate_template


class InvitationsForm(forms.Form):
    count = forms.IntegerField(
        label=gettext_lazy("How many invitation links?"),
        min_value=1,
        max_value=10_000,
        initial=100,
        help_text=gettext_lazy(
            "Each link can be used for one response. You can download them once, "
            "as a CSV file; only their hashes are kept."
        ),
    )


class RecipientsImportForm(forms.Form):
    """A CSV file of recipients' email addresses."""

    addresses = forms.FileField(
        label=gettext_lazy("CSV file of email addresses"),
        help_text=gettext_lazy(
            "One address per line, or a column headed “email”. Addresses "
            "already on the list are skipped; if any line is not an address, "
            "nothing is imported and the lines are listed."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )


class MailingForm(forms.Form):
    """The text of an invitation or a reminder email."""

    kind = forms.ChoiceField(
        choices=[("invitation", "invitation"), ("reminder", "reminder")],
        widget=forms.HiddenInput,
    )
    # The one language of the whole mailing, or "" for every language of the
    # survey (``mailings.mailing_languages``); never per recipient.
    language = forms.ChoiceField(required=False, widget=forms.HiddenInput)
    subject = forms.CharField(label=gettext_lazy("Subject"), max_length=150)
    body = forms.CharField(
        label=pgettext_lazy("email", "Text"),
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 9}),
        help_text=gettext_lazy(
            "{link} becomes each person's own one-response link; {title} the "
            "survey's title. An unsubscribe link is added at the end."
        ),
    )

    def __init__(self, *args, languages: list[str] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = [(code, code) for code in ["", *languages]]

    def clean(self):
        cleaned = super().clean()
        if "subject" in cleaned and "body" in cleaned:
            try:
                validate_template(cleaned["subject"], cleaned["body"])
            except forms.ValidationError as error:
                add_validation_errors(self, error)
        return cleaned


class MailLanguageForm(forms.Form):
    """Which languages the page's emails are written in (a GET form)."""

    language = forms.ChoiceField(
        label=gettext_lazy("Languages of the emails"),
        required=False,
        help_text=gettext_lazy(
            "Every recipient gets the same email: in every language of the "
            "survey, or in the one you pick here for the whole mailing."
        ),
    )

    def __init__(self, *args, choices: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = choices
