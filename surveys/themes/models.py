"""A theme: the name, logo and accent colour respondents see on a survey's pages."""

from __future__ import annotations

import hashlib

from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from surveys.themes.contrast import HEX_COLOUR, contrast

# The respondent's page: text on white, and white text on accent-coloured
# buttons (static/css/site.css, --paper and --accent-ink).
PAGE_BACKGROUND = "#ffffff"
BUTTON_TEXT = "#ffffff"


def validate_accent(value: str) -> None:
    """Refuse an accent colour below WCAG AA (4.5:1) on the page or its buttons."""
    if not HEX_COLOUR.match(value or ""):
        raise ValidationError(
            _("Give the colour as # and six hexadecimal digits, e.g. #0b5cad."),
            code="accent_format",
        )
    checks = (
        (contrast(value, PAGE_BACKGROUND), _("as text on the page's white background")),
        (contrast(BUTTON_TEXT, value), _("behind the white text of buttons")),
    )
    for result, where in checks:
        if not result.passes:
            raise ValidationError(
                _(
                    "%(colour)s has a contrast ratio of %(ratio).2f:1 %(where)s; "
                    "WCAG AA needs at least %(minimum)s:1 for normal text. "
                    "Choose a darker colour."
                )
                % {
                    "colour": value,
                    "ratio": result.ratio,
                    "where": where,
                    "minimum": result.minimum,
                },
                code="accent_contrast",
            )


def accent_stylesheet_text(accent: str) -> str:
    """CSS setting the page's --accent custom property to a validated colour."""
    return f":root {{ --accent: {accent.lower()}; }}\n"


def accent_stylesheet_url(accent: str) -> str:
    """Where a page loads a survey's own accent colour ("" for none)."""
    if not accent:
        return ""
    return reverse("themes:accent_stylesheet", args=[accent.lower().lstrip("#")])


class Theme(models.Model):
    """An institution's look on respondent pages, managed by administrators.

    At most one theme is the institution's default (used by every survey that
    picks none); a survey's owner may pick another one for their survey.  The
    logo is kept in the database and served by this site (never another
    origin), so a respondent's page makes no third-party request.
    """

    name = models.CharField(
        gettext_lazy("institution name"),
        max_length=120,
        help_text=gettext_lazy(
            "Shown in the header of respondent pages, and the logo's text alternative."
        ),
    )
    accent = models.CharField(
        gettext_lazy("accent colour"),
        max_length=7,
        default="#0b5cad",
        validators=[validate_accent],
        help_text=gettext_lazy(
            "Buttons and links, as #rrggbb. It must reach a contrast of 4.5:1 "
            "with white (WCAG AA)."
        ),
    )
    logo = models.BinaryField(blank=True, default=b"", editable=False)
    logo_type = models.CharField(max_length=20, blank=True, editable=False)
    is_institution_default = models.BooleanField(
        gettext_lazy("institution default"),
        default=False,
        help_text=gettext_lazy("Used by every survey whose owner picks no theme."),
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_institution_default"],
                condition=models.Q(is_institution_default=True),
                name="one_institution_default_theme",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def version(self) -> str:
        """Changes whenever the colour or logo does (for cache-busting URLs)."""
        stamp = f"{self.pk}:{self.accent}:{self.updated_at.isoformat()}"
        return hashlib.sha256(stamp.encode()).hexdigest()[:16]

    @property
    def stylesheet(self) -> str:
        """The theme's CSS: the accent as the page's --accent custom property."""
        return accent_stylesheet_text(self.accent)

    @property
    def stylesheet_url(self) -> str:
        """Where the page loads the theme's CSS (same origin, versioned)."""
        return reverse("themes:stylesheet", args=[self.pk, self.version])

    @property
    def logo_url(self) -> str:
        """Where the page loads the logo (same origin, versioned); "" for none."""
        if not self.logo_type:
            return ""
        return reverse("themes:logo", args=[self.pk, self.version])


def theme_for(survey_theme_id: int | None) -> Theme | None:
    """The theme a survey's pages show: its own pick, else the institution's."""
    themes = Theme.objects.defer("logo")
    if survey_theme_id is not None:
        return themes.filter(pk=survey_theme_id).first()
    return themes.filter(is_institution_default=True).first()
