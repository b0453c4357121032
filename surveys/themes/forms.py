"""The administrators' theme form: the logo arrives as an upload and is checked."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from surveys.themes.logos import MAX_LOGO_BYTES, logo_media_type
from surveys.themes.models import Theme


class ThemeForm(forms.ModelForm):
    logo_file = forms.FileField(
        label=_("Logo"),
        required=False,
        help_text=_(
            "PNG, JPEG or WebP, at most %(kib)d KiB. SVG is refused (it can "
            "carry scripts). Leave empty to keep the current logo."
        )
        % {"kib": MAX_LOGO_BYTES // 1024},
        widget=forms.ClearableFileInput(
            attrs={"accept": "image/png,image/jpeg,image/webp"}
        ),
    )
    remove_logo = forms.BooleanField(label=_("Remove the logo"), required=False)

    class Meta:
        model = Theme
        fields = ("name", "accent", "is_institution_default")

    def clean_logo_file(self) -> tuple[bytes, str] | None:
        upload = self.cleaned_data.get("logo_file")
        if not upload:
            return None
        if upload.size > MAX_LOGO_BYTES:
            # Without reading a large file into memory.
            raise ValidationError(
                _("The logo is too large: at most %(kib)d KiB is accepted.")
                % {"kib": MAX_LOGO_BYTES // 1024}
            )
        data = upload.read()
        return data, logo_media_type(data)

    def save(self, commit: bool = True) -> Any:
        theme = super().save(commit=False)
        logo = self.cleaned_data.get("logo_file")
        if logo is not None:
            theme.logo, theme.logo_type = logo
        elif self.cleaned_data.get("remove_logo"):
            theme.logo, theme.logo_type = b"", ""
        if commit:
            theme.save()
        return theme
