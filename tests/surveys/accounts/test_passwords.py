"""Passwords: at least 12 characters everywhere; reset is switched off.

Reset needs outgoing email, which is not configured: its URLs are not routed
and neither sign-in page links to one.
"""

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import NoReverseMatch, reverse

from surveys.accounts.models import User


@pytest.fixture(autouse=True)
def _fast_password_hashing() -> None:
    """Keep the production hashers here (tests/surveys/conftest.py swaps them)."""


RESET_PATHS = [
    "/accounts/password_reset/",
    "/accounts/password_reset/done/",
    "/accounts/reset/MQ/set-password/",
    "/accounts/reset/done/",
]


def test_an_eleven_character_password_is_refused():
    with pytest.raises(ValidationError, match="at least 12 characters"):
        validate_password("zq8-vbn!ka2")


def test_a_twelve_character_password_is_accepted():
    assert validate_password("zq8-vbn!ka2w") is None


@pytest.mark.django_db
def test_create_researcher_refuses_an_eleven_character_password(monkeypatch):
    monkeypatch.setenv("RESEARCHER_PASSWORD", "zq8-vbn!ka2")
    with pytest.raises(CommandError, match="at least 12 characters"):
        call_command("create_researcher", "grace", "--no-input")
    assert not User.objects.exists()


@pytest.mark.django_db
def test_create_researcher_accepts_a_twelve_character_password(monkeypatch):
    monkeypatch.setenv("RESEARCHER_PASSWORD", "zq8-vbn!ka2w")
    call_command("create_researcher", "grace", "--no-input")
    assert User.objects.get(username="grace").check_password("zq8-vbn!ka2w")


@pytest.mark.django_db
def test_password_change_refuses_a_short_new_password(client, django_user_model):
    user = django_user_model.objects.create_user("ada", password="old passphrase 42")
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "old passphrase 42",
            "new_password1": "zq8-vbn!ka2",
            "new_password2": "zq8-vbn!ka2",
        },
    )
    assert response.status_code == 200
    assert b"at least 12 characters" in response.content
    user.refresh_from_db()
    assert user.check_password("old passphrase 42")


@pytest.mark.django_db
@pytest.mark.parametrize("path", RESET_PATHS)
def test_password_reset_pages_are_not_routed(client, path):
    assert client.get(path).status_code == 404
    assert client.post(path, {"email": "ada@example.org"}).status_code == 404


@pytest.mark.parametrize("name", ["password_reset", "admin_password_reset"])
def test_password_reset_has_no_url_name(name):
    with pytest.raises(NoReverseMatch):
        reverse(name)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_sign_in_pages_do_not_offer_a_password_reset(client, path):
    response = client.get(path)
    assert response.status_code == 200
    page = response.content.decode().lower()
    assert "password_reset" not in page
    assert "forgot" not in page
    assert "reset" not in page
