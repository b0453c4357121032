"""Surveys and their questions, as researchers build them.

A private question's mechanism is an ldp *spec* (a JSON-able dict).  Once a
survey is published the compiled spec is frozen: reports carry the revision of
the spec they were randomized under, and a changed spec is stored as a new
SpecRevision instead of overwriting the old one.  ``compiled_mechanism()`` on
either gives the compiled ldp mechanism from a process-wide cache.
"""

import re
import secrets
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator, URLValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

import ldp
from surveys.authoring.compiled import compiled_mechanism
from surveys.themes.models import validate_accent

CODE_PLACEHOLDER = "{code}"
completion_code_validator = RegexValidator(
    r"^[A-Za-z0-9_-]{1,64}$",
    "A completion code is 1 to 64 letters, digits, hyphens or underscores.",
)


def validate_redirect_url(value: str) -> None:
    """An https URL; ``{code}`` may stand where the completion code goes."""
    URLValidator(
        schemes=["https"],
        message=(
            "Enter a full https:// address (for example "
            "https://app.prolific.com/submissions/complete?cc={code}); plain "
            "http is refused because it would send the code unencrypted."
        ),
    )(value.replace(CODE_PLACEHOLDER, "CODE"))


def new_public_token() -> str:
    """An unguessable slug for a survey's public link."""
    return secrets.token_urlsafe(16)


LINK_FIELDS_MAX = 5
LINK_FIELD_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")


def validate_link_fields(value: Any) -> None:
    """At most LINK_FIELDS_MAX distinct names, each a letter then up to 31
    letters, digits or underscores (as panels name them: PROLIFIC_PID)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError("Link fields are a list of names.")
    if len(value) > LINK_FIELDS_MAX:
        raise ValidationError(
            f"{len(value)} link fields; allowed: at most {LINK_FIELDS_MAX}."
        )
    for name in value:
        if not LINK_FIELD_NAME.match(name):
            raise ValidationError(
                f"“{name}” is not a link field name: use a letter, then up to 31 "
                "letters, digits or underscores (e.g. PROLIFIC_PID)."
            )
    if len({name.lower() for name in value}) != len(value):
        raise ValidationError("Each link field is named once.")


LOCALIZED_MARK = "_localized_language"


def refuse_localized(instance: models.Model) -> None:
    """Raise if ``instance`` was localized in memory for one respondent's page:
    saving it would write a translation over the researcher's source text."""
    language = getattr(instance, LOCALIZED_MARK, None)
    if language is not None:
        raise RuntimeError(
            f"{type(instance).__name__} {instance.pk} holds its {language} texts "
            "for display and must not be saved."
        )


class Survey(models.Model):
    class Status(models.TextChoices):
        # Translated when shown (a refusal names the status in the reader's
        # language); stored as the value.
        DRAFT = "draft", pgettext_lazy("survey state", "Draft")
        OPEN = "open", pgettext_lazy("survey state", "Open")
        CLOSED = "closed", pgettext_lazy("survey state", "Closed")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="surveys"
    )
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    consent_text = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status, default=Status.DRAFT)
    epsilon_budget = models.FloatField(
        default=4.0,
        validators=[MinValueValidator(0.01)],
        help_text="Most privacy loss (total ε) one respondent may incur.",
    )
    planned_respondents = models.PositiveIntegerField(default=1000)
    # Shown on the consent page: who respondents can ask about the survey.
    researcher_contact = models.CharField(max_length=300, blank=True)
    # Whether a device that already answered may answer again (each new
    # answer adds its ε to what the device has already sent; off by default).
    allow_reanswer = models.BooleanField(default=False)
    # One completion code for the whole survey (never per respondent: a code
    # per respondent would link a person to a submission), shown on the
    # receipt and put into the redirect URL in place of ``{code}``.
    completion_code = models.CharField(
        max_length=64, blank=True, validators=[completion_code_validator]
    )
    completion_redirect_url = models.CharField(
        max_length=500, blank=True, validators=[validate_redirect_url]
    )
    # URL parameters recorded with each response (e.g. PROLIFIC_PID): values
    # sent as they are, which identify respondents to the researcher; the
    # consent page says so and shows the values (surveys/collection).
    link_fields = models.JSONField(
        default=list, blank=True, validators=[validate_link_fields]
    )
    link_fields_acknowledged = models.BooleanField(default=False)
    public_token = models.CharField(
        max_length=32, unique=True, default=new_public_token
    )
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # --- lifecycle (surveys.authoring.lifecycle decides, at request time) ---
    # Stored in UTC; the builder shows and reads them in ``time_zone``.
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    # Stop accepting new respondents once this many submissions are stored.
    close_at_responses = models.PositiveIntegerField(null=True, blank=True)
    # The public link is switched off: only one-response invitations work.
    invitation_only = models.BooleanField(default=False)
    # Archived: closed, read-only, hidden from the list by default.
    archived = models.BooleanField(default=False)
    # The look of the respondent pages; none: the institution's default theme.
    theme = models.ForeignKey(
        "themes.Theme",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The survey's own accent colour over its theme's ("" keeps the theme's),
    # checked for contrast like a theme's; shown through a same-origin
    # stylesheet built from this validated value only (surveys.themes.views).
    theme_accent = models.CharField(
        max_length=7, blank=True, default="", validators=[validate_accent]
    )
    # Whether the owner was told that the survey opened / closed (beat).
    notified_open = models.BooleanField(default=False)
    notified_closed = models.BooleanField(default=False)
    # --- languages (surveys.authoring.translations) ---
    # The language the researcher writes in, and the others the survey is
    # offered in (codes from settings.LANGUAGES, never the source itself).
    source_language = models.CharField(
        max_length=10, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    languages = models.JSONField(default=list, blank=True)
    # {language: {"title", "description", "consent_text"}} (see translations).
    translations = models.JSONField(default=dict, blank=True)
    # Store each submission's language: an unprotected field (which language a
    # person reads tells something about them), off unless the researcher asks.
    record_language = models.BooleanField(default=False)
    # Each respondent's device shows the questions of every section in its own
    # random order (those that neither decide nor depend on display logic and
    # are not grid rows); drawn on the device, never sent (static/js/order.js).
    shuffle_questions = models.BooleanField(default=False)
    # Respondents may save their answers on their own device and finish later
    # (static/js/respond_save.js): unprotected answers as typed and protected ones
    # already randomized (counted as sent), never a true protected answer.
    # Off unless the researcher asks: what is saved stays readable by this
    # site's pages even if it is never sent (docs/privacy.md).
    save_resume = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, unless this instance holds another language's texts in memory
        (``translations.localize_survey``): those would overwrite the source."""
        refuse_localized(self)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        if self.link_fields and not self.link_fields_acknowledged:
            raise ValidationError(
                {
                    "link_fields_acknowledged": (
                        "Link fields are stored as they are sent and identify "
                        "respondents to you: tick the box to confirm that this "
                        "is intended."
                    )
                }
            )

    def completion_url(self) -> str:
        """Where respondents go after submitting ("" for nowhere), with the
        completion code in place of ``{code}``."""
        if not self.completion_redirect_url:
            return ""
        return self.completion_redirect_url.replace(
            CODE_PLACEHOLDER, quote(self.completion_code, safe="")
        )


GRID_SEPARATOR = " — "


class Question(models.Model):
    class Kind(models.TextChoices):
        YES_NO = "yes_no", _("Yes / no")
        SINGLE_CHOICE = "single_choice", _("Single choice")
        ORDINAL = "ordinal", _("Scale (Likert / ordered)")
        NUMERIC = "numeric", _("Number in a range")
        MULTI_SELECT = "multi_select", _("Multiple selections")
        # Free text: never protected (no mechanism randomizes text; a typed
        # sentence can name its writer), always sent and stored as typed.
        SHORT_TEXT = "short_text", _("Open text (one line)")
        LONG_TEXT = "long_text", _("Open text (several lines)")

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="questions"
    )
    position = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=Kind)
    text = models.CharField(max_length=500)
    help_text = models.TextField(blank=True)
    # Answer labels for choice kinds, in order; the answer index is the ldp value.
    options = models.JSONField(default=list, blank=True)
    numeric_low = models.DecimalField(
        max_digits=14, decimal_places=4, null=True, blank=True
    )
    numeric_high = models.DecimalField(
        max_digits=14, decimal_places=4, null=True, blank=True
    )
    numeric_step = models.DecimalField(
        max_digits=14, decimal_places=4, null=True, blank=True
    )
    # Multi-select only: the most options one respondent may tick (padding-and-
    # sampling pads every answer to this many items); empty means all of them.
    max_selections = models.PositiveSmallIntegerField(null=True, blank=True)
    is_private = models.BooleanField(default=True)
    # An unprotected choice question only: a last answer "Other, please
    # specify" (its value is ``len(options)``) with a text box whose words are
    # stored as typed (``PlainAnswer.other_text``).
    other_option = models.BooleanField(default=False)
    # The device shows the options in its own random order ("Other" last).
    shuffle_options = models.BooleanField(default=False)
    # Unprotected choice questions only (surveys.authoring.quotas): answer
    # value (as text) → the most counted submissions that may give it.
    quotas = models.JSONField(default=dict, blank=True)
    # Optional: the respondent may skip it or choose "Prefer not to answer".
    # A skip is visible to the server (the device sends a "skipped" marker and
    # nothing derived from an answer), and the consent page says so.
    optional = models.BooleanField(default=False)
    # A section break before this question: respondents see one section at a
    # time (all in one page, nothing sent before the end).  Empty: no break.
    section_title = models.CharField(max_length=200, blank=True)
    section_intro = models.TextField(blank=True)
    # Display logic (surveys.authoring.display_logic): shown only when an
    # earlier unprotected question's answer is one of ``any_of``.
    show_if = models.JSONField(null=True, blank=True)
    # A row of a grid of scale items: the grid's stem ("How often do you…"),
    # shared by consecutive rows with the same scale, each row its own
    # protected question.  The row's text is "stem — item" (GRID_SEPARATOR), so
    # results and exports name it whole; the answer page shows the item.
    grid = models.CharField(max_length=200, blank=True)
    not_private_acknowledged = models.BooleanField(default=False)
    requested_epsilon = models.FloatField(null=True, blank=True)
    # Empty: the recommended mechanism for (kind, k, ε).
    mechanism = models.CharField(max_length=40, blank=True)
    # Forced response only: the researcher's own design, as exact "p/q" strings
    # (mechanisms.ForcedDesign.as_json): {"type": "custom", "truthful",
    # "forced_yes", "forced_no"} or {"type": "unrelated_question", "truthful",
    # "prevalence"}.  None: the symmetric design from the requested ε.
    design = models.JSONField(null=True, blank=True)
    # The compiled ldp spec (with integer weights); None for non-private questions.
    spec = models.JSONField(null=True, blank=True)
    spec_revision = models.PositiveIntegerField(default=1)
    # {language: {"text", "help_text", "options", "section_title",
    # "section_intro", "grid"}}: the respondent's texts in the survey's other
    # languages (surveys.authoring.translations); options keep the source's
    # count and order, since the answer is an option's index.
    translations = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(is_private=True)
                | models.Q(not_private_acknowledged=True),
                name="non_private_question_needs_acknowledgement",
            ),
            # Free text and "Other, please specify" are never randomized.
            models.CheckConstraint(
                condition=~models.Q(is_private=True, other_option=True)
                & ~models.Q(is_private=True, kind__in=["short_text", "long_text"]),
                name="free_text_is_never_protected",
            ),
        ]

    def __str__(self) -> str:
        return self.text

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, unless this instance holds another language's texts in memory."""
        refuse_localized(self)
        super().save(*args, **kwargs)

    @property
    def grid_item(self) -> str:
        """A grid row's item: its text after the grid's stem (the whole text
        when the row's text no longer starts with it)."""
        prefix = self.grid + GRID_SEPARATOR
        if self.grid and self.text.startswith(prefix):
            return self.text[len(prefix) :]
        return self.text

    def compiled_mechanism(self) -> ldp.Mechanism | None:
        """The mechanism this question randomizes with now (None: not protected
        or not compiled yet); compiled once per process and spec."""
        if not self.is_private or not self.spec:
            return None
        return compiled_mechanism(self.spec)


class SpecRevision(models.Model):
    """Every spec a question has been published under, kept for re-estimation."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="spec_revisions"
    )
    revision = models.PositiveIntegerField()
    spec = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["question", "revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["question", "revision"], name="one_spec_per_question_revision"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.question_id} r{self.revision}"

    def compiled_mechanism(self) -> ldp.Mechanism:
        """The mechanism reports of this revision were randomized with."""
        return compiled_mechanism(self.spec)


class Collaborator(models.Model):
    """Another researcher's access to a survey (``surveys.authoring.access``).

    The owner stays the only one who can archive or delete the survey and
    decide who else has access.  An *editor* changes questions and settings,
    publishes, closes, sends invitations and runs analyses and exports; a
    *viewer* reads the survey, its results and exports and changes nothing.
    """

    class Role(models.TextChoices):
        EDITOR = "editor", "Editor"
        VIEWER = "viewer", "Viewer"

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="collaborators"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="collaborations",
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    added_on = models.DateField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "user"], name="one_role_per_person_and_survey"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of survey {self.survey_id}"


class SurveyImport(models.Model):
    """Where a draft survey came from, and what of it was not imported.

    ``findings`` lists, as codes with their values (worded when shown,
    ``surveys.authoring.imports.wording``), every item of the file that did
    not become a question or became one with a change, so that the
    researcher can read the list after the import, not only on its page.
    """

    class Source(models.TextChoices):
        XLSFORM = "xlsform", "XLSForm"
        LIMESURVEY = "limesurvey", "LimeSurvey"

    survey = models.OneToOneField(
        Survey, on_delete=models.CASCADE, related_name="import_record"
    )
    source = models.CharField(max_length=20, choices=Source.choices)
    file_name = models.CharField(max_length=200, blank=True)
    findings = models.JSONField(default=list, blank=True)
    imported_on = models.DateField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.survey_id} from {self.source}"
