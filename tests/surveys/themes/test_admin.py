"""Administrators add themes in the admin; a refused colour or logo changes nothing."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from surveys.themes.models import Theme
from tests.surveys.themes.conftest import PNG

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(
        django_user_model.objects.create_superuser("root", "root@example.org")
    )
    return client


def _post(client, accent: str, logo: bytes, name: str = "logo.png"):
    return client.post(
        reverse("admin:themes_theme_add"),
        {
            "name": "Institut Exemple",
            "accent": accent,
            "is_institution_default": "on",
            "logo_file": SimpleUploadedFile(name, logo, content_type="image/png"),
        },
    )


def test_admin_adds_a_theme_with_its_logo(admin_client):
    response = _post(admin_client, "#0b5cad", PNG)
    assert response.status_code == 302
    theme = Theme.objects.get()
    assert theme.is_institution_default and theme.logo_type == "image/png"
    change = admin_client.get(reverse("admin:themes_theme_change", args=[theme.pk]))
    assert theme.logo_url in change.content.decode()


def test_admin_sees_the_measured_ratio_and_nothing_is_stored(admin_client):
    response = _post(admin_client, "#777777", b"<svg onload='x()'/>", "logo.svg")
    assert response.status_code == 200
    page = response.content.decode()
    assert "4.48:1" in page and "can carry scripts" in page
    assert not Theme.objects.exists()
