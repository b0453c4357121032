"""Builder forms about a survey as a whole: its settings, an uploaded
definition, and the people it is shared with.  Field parsing only; the rules
live in services and models.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from ldp.spec.ceilings import EPSILON_CEILING_SURVEY
from surveys.authoring.models import Survey
from surveys.themes.models import validate_accent


class LinkFieldsField(forms.CharField):
    """Names separated by commas, as a list (validated by the model)."""

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return ", ".join(value)
        return value

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        text = super().to_python(value) or ""
        if isinstance(value, list):
            return value
        return [part.strip() for part in text.split(",") if part.strip()]


class SurveyForm(forms.ModelForm):
    epsilon_budget = forms.FloatField(
        label=_("Privacy budget (total ε per respondent)"),
        min_value=0.01,
        max_value=EPSILON_CEILING_SURVEY,
        initial=4.0,
        help_text=format_lazy(
            _(
                "The most privacy loss one respondent may incur over all protected "
                "questions together. Publishing above it is refused. 4 is a common "
                "cap; respondents' devices refuse any survey above {ceiling}."
            ),
            ceiling=EPSILON_CEILING_SURVEY,
        ),
        widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
    )
    planned_respondents = forms.IntegerField(
        label=_("Planned number of respondents"),
        min_value=1,
        max_value=10_000_000,
        initial=1000,
        help_text=_("Used to show the margin of error you can expect per question."),
    )

    # Declared here (not generated from the model) so that any text, however
    # long, gets the colour's own message rather than a length error.
    theme_accent = forms.CharField(
        label=_("Accent colour for this survey (optional)"),
        required=False,
        help_text=_(
            "Buttons and links of this survey's pages, as # and six "
            "hexadecimal digits, e.g. #0b5cad. It must reach a contrast of "
            "4.5:1 with white (WCAG AA). Empty: the theme's own colour."
        ),
        widget=forms.TextInput(
            attrs={"placeholder": "#0b5cad", "size": 8, "spellcheck": "false"}
        ),
    )
    link_fields = LinkFieldsField(
        label=_("Record from the link (optional)"),
        required=False,
        help_text=_(
            "Names of URL parameters to store with each response, separated by "
            "commas, e.g. PROLIFIC_PID, STUDY_ID for "
            "…/s/…/?PROLIFIC_PID={{%PROLIFIC_PID%}}. They are stored as they "
            "are sent, not randomized: a panel's participant id identifies the "
            "respondent to you, and the consent page tells respondents so and "
            "shows them the values. Their protected answers stay randomized."
        ),
    )

    class Meta:
        model = Survey
        fields = (
            "title",
            "description",
            "consent_text",
            "epsilon_budget",
            "planned_respondents",
            "researcher_contact",
            "allow_reanswer",
            "completion_code",
            "completion_redirect_url",
            "link_fields",
            "link_fields_acknowledged",
            "theme",
            "theme_accent",
            "shuffle_questions",
            "save_resume",
        )
        labels: ClassVar = {
            "title": _("Title"),
            "description": _("Description"),
            "link_fields_acknowledged": _(
                "I understand that these fields identify respondents to me"
            ),
            "consent_text": _("Consent text"),
            "researcher_contact": _("Researcher contact"),
            "allow_reanswer": _("Let a device that already answered answer again"),
            "completion_code": _("Completion code (optional)"),
            "completion_redirect_url": _("Redirect after submitting (optional)"),
            "theme": _("Theme of the respondent pages"),
            "shuffle_questions": _(
                "Show the questions of each section in a random order"
            ),
            "save_resume": _(
                "Let respondents save and finish later on the same device"
            ),
        }
        help_texts: ClassVar = {
            "save_resume": _(
                "Answers are saved on the respondent's own device, never on the "
                "server, so they can be continued only on that device. Protected "
                "answers are randomized when saved and count as sent; answers not "
                "protected are kept as typed, and this site's pages can read them "
                "even if they are never sent. Off: every answer stays on the page "
                "until it is sent."
            ),
            "shuffle_questions": _(
                "Each respondent's device draws its own order and never sends "
                "it. Questions that decide or depend on display logic, and grid "
                "rows, keep their places."
            ),
            "description": _("Shown to respondents before they start."),
            "consent_text": _("What respondents agree to before answering."),
            "researcher_contact": _(
                "Who respondents can ask about this survey, e.g. "
                "“Ada Lovelace, ada@example.org”. Shown on the consent page."
            ),
            "allow_reanswer": _(
                "Off (recommended): a device that has sent answers refuses to "
                "answer again. On: it offers to, after telling the respondent that "
                "each new answer adds its whole ε again, because two randomized "
                "copies of the same truth reveal more than one (twice the ε for "
                "two answers). Use it only where the same device is shared by "
                "different respondents."
            ),
            "completion_code": _(
                "One code for the whole survey, shown on every respondent's "
                "receipt (for panels such as Prolific or MTurk). It is the same "
                "for everyone on purpose: a code per respondent would link a "
                "person to their submission."
            ),
            "completion_redirect_url": _(
                "An https:// address respondents are sent to after submitting "
                "(a link on the receipt as well); {code} is replaced by the "
                "completion code, e.g. "
                "https://app.prolific.com/submissions/complete?cc={code}."
            ),
        }
        widgets: ClassVar = {
            "theme": forms.Select,
            "description": forms.Textarea(attrs={"rows": 3}),
            "consent_text": forms.Textarea(attrs={"rows": 4}),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        theme = self.fields["theme"]
        theme.empty_label = _("The institution's default theme")
        theme.help_text = _(
            "The name, logo and accent colour respondents see. Administrators "
            "add themes; each one's colour was checked for contrast (WCAG AA)."
        )

    def clean_theme_accent(self) -> str:
        """The colour as stored and served (lower case), checked for format
        and contrast; "" keeps the theme's."""
        value = (self.cleaned_data.get("theme_accent") or "").lower()
        if value:
            validate_accent(value)
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        url = data.get("completion_redirect_url") or ""
        if "{code}" in url and not data.get("completion_code"):
            self.add_error(
                "completion_code",
                _(
                    "The redirect address contains {code}: set the completion "
                    "code that replaces it."
                ),
            )
        return data


class DefinitionImportForm(forms.Form):
    """Upload of a survey definition exported by Deniable (JSON)."""

    definition = forms.FileField(
        label=_("Survey definition file (.json)"),
        help_text=_(
            "A file downloaded with “Download definition” on a survey's page, "
            "here or on another Deniable server. It becomes a new draft survey "
            "owned by you; it holds no responses."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": "application/json,.json"}),
    )


class CollaboratorForm(forms.Form):
    """The owner shares the survey with another account."""

    person = forms.CharField(
        label=_("Username or email address"),
        max_length=254,
        help_text=_("The account must already exist on this server."),
    )
    role = forms.ChoiceField(
        label=_("Role to give"),
        choices=[
            ("viewer", _("Viewer: reads the survey, results and exports")),
            ("editor", _("Editor: also changes and fields the survey")),
        ],
        initial="viewer",
    )
