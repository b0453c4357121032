"""Builder forms for questions: field parsing only; the rules live in services
and mechanisms.  A survey's own forms are in :mod:`surveys.authoring.survey_forms`,
the planning panel's in :mod:`surveys.authoring.planning_forms`.

Django (5.2) ties help texts and errors to their fields with aria-describedby
and renders radio groups as fieldsets with a legend.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ldp.spec.ceilings import EPSILON_CEILING_QUESTION
from surveys.authoring import display_logic, mechanisms, validation
from surveys.authoring import quotas as quota_rules
from surveys.authoring.designs import (
    CUSTOM,
    SYMMETRIC,
    UNRELATED_QUESTION,
    ForcedDesign,
)
from surveys.authoring.kinds import facts
from surveys.authoring.ldp_words import localized_number
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question
from surveys.authoring.piping import HELP as PIPE_HELP


def add_validation_errors(form: forms.Form, error: ValidationError) -> None:
    """Show a service's ``ValidationError`` on ``form``: each message on its
    field where the form has one, the rest as form-wide errors."""
    if hasattr(error, "error_dict"):
        for field, errors in error.message_dict.items():
            for message in errors:
                form.add_error(field if field in form.fields else None, message)
    else:
        for message in error.messages:
            form.add_error(None, message)


DESIGN_PERCENT_FIELDS = (
    "fr_truthful",
    "fr_forced_yes",
    "fr_forced_no",
    "uq_truthful",
    "uq_prevalence",
)
WHY_NO_REAL_INNOCUOUS_QUESTION = _(
    "Why the device draws the innocuous answer instead of asking a real question "
    "(such as “Were you born in January to March?”): a respondent who answers a "
    "real innocuous question truthfully and whose true innocuous answer is "
    "“no” sends “yes” only if the sensitive answer is “yes”, so for them a "
    "“yes” proves it (ε = ∞), and the server may know the innocuous answer "
    "from other sources. Drawn on the device with a known prevalence, the "
    "innocuous answer is the same coin for everyone, and ε stays finite."
)


def _percent_field(label: Any, help_text: Any = "") -> forms.DecimalField:
    return forms.DecimalField(
        label=label,
        required=False,
        max_digits=8,
        help_text=help_text,
        error_messages={"invalid": _("Enter a percentage, e.g. 70 or 12.5.")},
        widget=forms.NumberInput(attrs={"step": "0.1", "inputmode": "decimal"}),
    )


def _percent(value: Fraction) -> str:
    return f"{float(value * 100):g}"


PRIVACY_FIELDS = (
    "kind",
    "options",
    "max_selections",
    "numeric_low",
    "numeric_high",
    "numeric_step",
    "protection",
    "not_private_acknowledged",
    "requested_epsilon",
    "mechanism",
    "design",
    *DESIGN_PERCENT_FIELDS,
)
PROTECTED = "protected"
PLAIN = "plain"


class QuestionForm(forms.Form):
    """One question; ``preview_only`` relaxes the text for the live preview."""

    why_simulated = WHY_NO_REAL_INNOCUOUS_QUESTION

    kind = forms.ChoiceField(
        label=_("Question type"), choices=Question.Kind.choices, initial="yes_no"
    )
    text = forms.CharField(label=_("Question"), max_length=500, help_text=PIPE_HELP)
    help_text = forms.CharField(
        label=_("Extra explanation for respondents (optional)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    options = forms.CharField(
        label=_("Answer options, one per line"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("For single choice, scale and multiple selections. In order."),
    )
    max_selections = forms.IntegerField(
        label=_("Most options one respondent may select (optional)"),
        required=False,
        min_value=1,
        help_text=_(
            "For multiple selections. A small limit lets the randomization spend "
            "ε on fewer items and gives a smaller margin of error."
        ),
    )
    other_option = forms.BooleanField(
        label=_("Add “Other, please specify” with a text box"),
        required=False,
        help_text=_(
            "Unprotected questions only. What respondents type there is sent "
            "and stored exactly as typed: free text is never randomized, and it "
            "can identify the person who wrote it."
        ),
    )
    shuffle_options = forms.BooleanField(
        label=_("Show the options in a random order"),
        required=False,
        help_text=_(
            "Each respondent's device draws its own order (“Other” stays last) "
            "and never sends it; the answer is the same whatever the order."
        ),
    )
    quotas = forms.CharField(
        label=_("Quotas (optional): one line per answer, “answer: most respondents”"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "Unprotected questions only. A respondent whose answer's quota is "
            "full is thanked and sent nothing, before anything is randomized, "
            "so no privacy is spent. Protected answers never have quotas, "
            "decide what is shown or fill in text: the server would learn them "
            "from who is let in. Respondents already answering when a quota "
            "fills are still accepted."
        ),
    )
    numeric_low = forms.DecimalField(
        label=_("Lowest value"), required=False, max_digits=14, decimal_places=4
    )
    numeric_high = forms.DecimalField(
        label=_("Highest value"), required=False, max_digits=14, decimal_places=4
    )
    numeric_step = forms.DecimalField(
        label=_("Step"), required=False, max_digits=14, decimal_places=4, initial=1
    )
    protection = forms.ChoiceField(
        label=_("Protection"),
        choices=[
            (PROTECTED, _("Protected: randomized on the respondent's device")),
            (PLAIN, _("Not protected: the true answer is sent and stored")),
        ],
        initial=PROTECTED,
        widget=forms.RadioSelect,
    )
    not_private_acknowledged = forms.BooleanField(
        label=_(
            "I understand this answer is not protected and will be stored exactly "
            "as given (use only for non-sensitive questions such as demographics)."
        ),
        required=False,
    )
    section_title = forms.CharField(
        label=_("Start a new section here: its title (optional)"),
        required=False,
        max_length=200,
        help_text=_(
            "Respondents see one section at a time, with “Section 2 of 4”, in "
            "one page: nothing is sent before the last section, and true "
            "answers never leave their device."
        ),
    )
    section_intro = forms.CharField(
        label=_("Introduction to the section (optional)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    optional = forms.BooleanField(
        label=_("Optional: respondents may skip it or choose “Prefer not to answer”"),
        required=False,
        help_text=_(
            "A skip is visible to the server: the respondent's device sends only "
            "a “skipped” marker for this question (never a randomized report), "
            "and respondents are told so. Estimates use the respondents who "
            "answered it; the results show how many skipped it."
        ),
    )
    show_if = forms.MultipleChoiceField(
        label=_("Show this question only when… (optional)"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "Tick answers of one earlier unprotected question: the question is "
            "shown only to respondents who gave one of them, and skipped by "
            "everyone else. Protected questions are not offered: their true "
            "answers never leave the respondent's device, and showing or hiding "
            "questions after them would reveal those answers to the server."
        ),
    )
    requested_epsilon = forms.FloatField(
        label=_("ε for this question"),
        required=False,
        initial=mechanisms.DEFAULT_EPSILON,
        # The limit is filled in by __init__: the device's own ceiling
        # (ldp/spec/ceilings.py, checked against the shipped randomizer).
        help_text="",
        widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
    )
    mechanism = forms.ChoiceField(
        label=_("Randomization method"),
        choices=mechanisms.mechanism_choices(),
        required=False,
        initial="",
    )
    design = forms.ChoiceField(
        label=_("Forced-response design (yes/no questions)"),
        choices=[
            (SYMMETRIC, _("Symmetric, from the ε above")),
            (CUSTOM, _("Custom split: truthful, forced “yes”, forced “no”")),
            (
                UNRELATED_QUESTION,
                _("Unrelated question: the device draws an innocuous answer"),
            ),
        ],
        required=False,
        initial=SYMMETRIC,
        widget=forms.RadioSelect,
        help_text=_(
            "A custom split or an unrelated-question design uses forced "
            "response and decides ε itself (the ε above is then not used); "
            "the preview shows the exact ε."
        ),
    )
    fr_truthful = _percent_field(_("Truthful (%)"), _("The three must add up to 100."))
    fr_forced_yes = _percent_field(_("Forced “yes” (%)"))
    fr_forced_no = _percent_field(_("Forced “no” (%)"))
    uq_truthful = _percent_field(
        _("Sent truthfully (%)"), _("How often the device sends the true answer.")
    )
    uq_prevalence = _percent_field(
        _("Known prevalence of the innocuous “yes” (%)"),
        _(
            "Otherwise the device sends “yes” this often, e.g. 25 for “born in "
            "January to March”. More than 0 and less than 100."
        ),
    )

    def __init__(
        self,
        *args: Any,
        preview_only: bool = False,
        logic_choices: list[tuple[str, str]] | None = None,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self.fields["requested_epsilon"].help_text = gettext(
            "Smaller ε protects respondents more but needs more respondents for "
            "the same precision. Allowed: more than 0, at most %(most)s."
        ) % {"most": localized_number(EPSILON_CEILING_QUESTION)}
        self.fields["show_if"].choices = logic_choices or []
        if not logic_choices:
            self.fields["show_if"].widget = forms.MultipleHiddenInput()
        self.preview_only = preview_only
        self.quotas: dict[str, int] = {}
        self.compiled = None
        self.config: PrivacyConfig | None = None
        if preview_only:
            self.fields["text"].required = False

    @classmethod
    def initial_for(cls, question: Question) -> dict[str, Any]:
        return {
            "kind": question.kind,
            "text": question.text,
            "help_text": question.help_text,
            "options": "\n".join(question.options or ()),
            "numeric_low": question.numeric_low,
            "numeric_high": question.numeric_high,
            "numeric_step": question.numeric_step,
            "max_selections": question.max_selections,
            "other_option": question.other_option,
            "shuffle_options": question.shuffle_options,
            "quotas": quota_rules.as_text(question),
            "protection": PROTECTED if question.is_private else PLAIN,
            "not_private_acknowledged": question.not_private_acknowledged,
            "optional": question.optional,
            "section_title": question.section_title,
            "section_intro": question.section_intro,
            "requested_epsilon": question.requested_epsilon,
            "mechanism": question.mechanism,
            **cls._design_initial(question.design),
            "show_if": [
                f"{question.show_if['question']}:{value}"
                for value in (question.show_if or {}).get("any_of", [])
            ],
        }

    @staticmethod
    def _design_initial(stored: dict[str, str] | None) -> dict[str, Any]:
        if not stored:
            return {"design": SYMMETRIC}
        design = ForcedDesign.from_json(stored)
        if design.kind == UNRELATED_QUESTION:
            return {
                "design": UNRELATED_QUESTION,
                "uq_truthful": _percent(design.truthful),
                "uq_prevalence": _percent(design.prevalence or Fraction(0)),
            }
        return {
            "design": CUSTOM,
            "fr_truthful": _percent(design.truthful),
            "fr_forced_yes": _percent(design.forced_yes or Fraction(0)),
            "fr_forced_no": _percent(design.forced_no or Fraction(0)),
        }

    def _design(self, data: dict[str, Any]) -> ForcedDesign | None:
        """The chosen forced-response design (None: symmetric from ε), its
        percentages read exactly as fractions (12.5 → 1/8)."""
        chosen = data.get("design") or SYMMETRIC
        if chosen == SYMMETRIC or data.get("kind") != "yes_no":
            return None

        def share(name: str) -> Fraction | None:
            value = data.get(name)
            return None if value is None else Fraction(value) / 100

        if chosen == UNRELATED_QUESTION:
            return ForcedDesign(
                kind=UNRELATED_QUESTION,
                truthful=share("uq_truthful"),
                prevalence=share("uq_prevalence"),
            )
        return ForcedDesign(
            kind=CUSTOM,
            truthful=share("fr_truthful"),
            forced_yes=share("fr_forced_yes"),
            forced_no=share("fr_forced_no"),
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("section_intro") and not data.get("section_title"):
            self.add_error(
                "section_title",
                _(
                    "A section introduction needs a section title: respondents "
                    "navigate by the titles."
                ),
            )
        # The question's wording does not affect privacy: a missing text still
        # gets a preview, but any error in a privacy field stops here.
        if any(name in self.errors for name in PRIVACY_FIELDS):
            return data
        epsilon = data.get("requested_epsilon")
        privacy = PrivacyConfig(
            kind=data["kind"],
            is_private=data["protection"] == PROTECTED,
            options=validation.normalize_options(data.get("options") or ""),
            epsilon=epsilon if epsilon is not None else mechanisms.DEFAULT_EPSILON,
            mechanism=data.get("mechanism") or "",
            low=data.get("numeric_low"),
            high=data.get("numeric_high"),
            step=data.get("numeric_step"),
            max_selections=data.get("max_selections"),
            design=self._design(data),
            other_option=bool(data.get("other_option")),
        )
        try:
            self.config, self.compiled = validation.question_validate(
                privacy=privacy,
                # The preview may show a plain question before the box is ticked.
                acknowledged=self.preview_only
                or bool(data.get("not_private_acknowledged")),
            )
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                for message in messages:
                    self.add_error(field if field in self.fields else None, message)
        self._clean_quotas(data, privacy)
        return data

    def _clean_quotas(self, data: dict[str, Any], privacy: PrivacyConfig) -> None:
        """The quota lines, read against the answers the form gives."""
        if not (data.get("quotas") or "").strip():
            return
        labels = quota_rules.labels_for(
            privacy.kind, privacy.options, privacy.other_option
        )
        try:
            self.quotas = quota_rules.parse(data["quotas"], labels)
        except ValidationError as error:
            for message in error.message_dict["quotas"]:
                self.add_error("quotas", message)
            return
        if (
            privacy.is_private
            or facts(privacy.kind).free_text
            or (facts(privacy.kind).grid)
        ):
            self.add_error("quotas", str(quota_rules.PROTECTED_QUOTA))

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for question_create / question_update."""
        if self.config is None:
            raise RuntimeError("service_kwargs() needs a valid form")
        return {
            "text": self.cleaned_data["text"],
            "help_text": self.cleaned_data["help_text"],
            "privacy": self.config,
            "not_private_acknowledged": bool(
                self.cleaned_data.get("not_private_acknowledged")
            ),
            "optional": bool(self.cleaned_data.get("optional")),
            "section_title": self.cleaned_data.get("section_title", ""),
            "section_intro": self.cleaned_data.get("section_intro", ""),
            "show_if": display_logic.parse(self.cleaned_data.get("show_if") or []),
            "shuffle_options": bool(self.cleaned_data.get("shuffle_options")),
            "quotas": self.quotas,
        }


class GridForm(forms.Form):
    """A grid of scale items: one stem, several items, one scale; each item
    becomes its own protected scale question (``services.grid_create``)."""

    stem = forms.CharField(
        label=_("Question shown above the grid"),
        max_length=200,
        help_text=_(
            "For example: How often have you done each of these in the past year?"
        ),
    )
    items = forms.CharField(
        label=_("Items, one per line (2 to 20)"),
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("Each item is a row of the grid and its own protected question."),
    )
    options = forms.CharField(
        label=_("Scale, one point per line, in order"),
        widget=forms.Textarea(attrs={"rows": 5}),
        initial=_("Never\nOnce or twice\nSometimes\nOften"),
    )
    requested_epsilon = forms.FloatField(
        label=_("ε for each item"),
        initial=mechanisms.DEFAULT_EPSILON,
        help_text=_(
            "Every item is randomized on its own, so a respondent's privacy loss "
            "for the grid is this ε times the number of items; the survey page "
            "shows the total against the budget."
        ),
        widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
    )
    optional = forms.BooleanField(
        label=_("Each item may be answered “Prefer not to answer”"), required=False
    )

    def service_kwargs(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "stem": data["stem"],
            "items": data["items"].splitlines(),
            "privacy": PrivacyConfig(
                kind=Question.Kind.ORDINAL,
                options=validation.normalize_options(data["options"]),
                epsilon=data["requested_epsilon"],
            ),
            "optional": data["optional"],
        }
