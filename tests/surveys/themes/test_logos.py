"""Logos: PNG, JPEG or WebP under the size limit; SVG and the rest refused."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from surveys.themes.forms import ThemeForm
from surveys.themes.logos import MAX_LOGO_BYTES, logo_media_type
from surveys.themes.models import Theme
from tests.surveys.themes.conftest import PNG

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 20
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8L" + b"\x00" * 14
SVG = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>'


@pytest.mark.parametrize(
    ("data", "media_type"),
    [(PNG, "image/png"), (JPEG, "image/jpeg"), (WEBP, "image/webp")],
)
def test_logo_type_is_read_from_the_files_signature(data, media_type):
    assert logo_media_type(data) == media_type


@pytest.mark.parametrize("data", [SVG, b"  <svg><script>alert(1)</script></svg>"])
def test_svg_logo_is_refused_saying_it_can_carry_scripts(data):
    with pytest.raises(ValidationError, match="can carry scripts"):
        logo_media_type(data)


@pytest.mark.parametrize("data", [b"GIF89a" + b"\x00" * 10, b"%PDF-1.7", b""])
def test_logo_of_another_type_is_refused(data):
    with pytest.raises(ValidationError, match="PNG, JPEG or WebP"):
        logo_media_type(data)


def test_logo_over_the_size_limit_is_refused():
    with pytest.raises(ValidationError, match="at most"):
        logo_media_type(PNG + b"\x00" * MAX_LOGO_BYTES)


def _form(accent: str, name: str, data: bytes) -> ThemeForm:
    upload = SimpleUploadedFile(name, data, content_type="image/png")
    return ThemeForm(
        {"name": "Université de Exemple", "accent": accent}, {"logo_file": upload}
    )


@pytest.mark.django_db
def test_theme_form_stores_an_accepted_logo_with_its_type():
    form = _form("#0b5cad", "logo.webp", WEBP)
    assert form.is_valid(), form.errors
    theme = form.save()
    theme.refresh_from_db()
    assert bytes(theme.logo) == WEBP and theme.logo_type == "image/webp"


@pytest.mark.django_db
def test_theme_form_refuses_an_svg_named_png_and_a_low_contrast_colour_together():
    form = _form("#777777", "logo.png", SVG)
    assert not form.is_valid()
    assert "can carry scripts" in form.errors["logo_file"][0]
    assert "4.48:1" in form.errors["accent"][0]
    assert not Theme.objects.exists()
