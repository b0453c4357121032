"""Passwords: at least 12 characters everywhere; a forgotten one is reset by email."""

import re

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from surveys.accounts.models import User


@pytest.fixture(autouse=True)
def _fast_password_hashing() -> None:
    """Keep the production hashers here (tests/surveys/conftest.py swaps them)."""


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


# --- password reset (Django's own views, through the configured email backend) ----
def reset_link(message) -> str:
    link = re.search(r"https?://testserver(/accounts/reset/\S+/)", message.body)
    assert link, message.body
    return link.group(1)


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user(
        "ada", email="ada@example.org", password="old passphrase 42"
    )


@pytest.mark.django_db
def test_a_reset_link_sets_a_new_password_once(client, ada, mailoutbox):
    response = client.post(reverse("password_reset"), {"email": "ADA@example.org"})
    assert response.status_code == 302
    (message,) = mailoutbox
    assert message.to == ["ada@example.org"]
    assert "ada" in message.body
    form = client.get(reset_link(message), follow=True)
    assert b"Choose a new password" in form.content
    new = {
        "new_password1": "a new passphrase 42",
        "new_password2": "a new passphrase 42",
    }
    done = client.post(form.redirect_chain[-1][0], new, follow=True)
    assert b"Password changed" in done.content
    ada.refresh_from_db()
    assert ada.check_password("a new passphrase 42")
    again = client.get(reset_link(message), follow=True)
    assert b"This link does not work" in again.content


@pytest.mark.django_db
def test_a_reset_for_an_unknown_address_looks_the_same_and_sends_nothing(
    client, ada, mailoutbox
):
    known = client.post(reverse("password_reset"), {"email": "ada@example.org"})
    unknown = client.post(reverse("password_reset"), {"email": "eve@example.org"})
    assert unknown.status_code == known.status_code == 302
    assert unknown["Location"] == known["Location"]
    assert [m.to for m in mailoutbox] == [["ada@example.org"]]


@pytest.mark.django_db
def test_a_reset_refuses_a_short_new_password_and_keeps_the_old_one(
    client, ada, mailoutbox
):
    client.post(reverse("password_reset"), {"email": "ada@example.org"})
    form = client.get(reset_link(mailoutbox[0]), follow=True)
    short = {"new_password1": "zq8-vbn!ka2", "new_password2": "zq8-vbn!ka2"}
    response = client.post(form.redirect_chain[-1][0], short)
    assert response.status_code == 200
    assert b"at least 12 characters" in response.content
    ada.refresh_from_db()
    assert ada.check_password("old passphrase 42")


@pytest.mark.django_db
def test_a_forged_reset_link_is_refused_with_a_way_to_ask_again(client, ada):
    response = client.get("/accounts/reset/MQ/set-password/", follow=True)
    assert response.status_code == 200
    assert b"This link does not work" in response.content
    assert reverse("password_reset").encode() in response.content


@pytest.mark.django_db
def test_a_reset_address_that_is_no_address_is_refused(client, mailoutbox):
    response = client.post(reverse("password_reset"), {"email": "not an address"})
    assert response.status_code == 200
    assert b"Enter a valid email address." in response.content
    assert mailoutbox == []


@pytest.mark.django_db
def test_the_sign_in_page_offers_a_password_reset(client):
    page = client.get("/accounts/login/").content.decode()
    assert f'href="{reverse("password_reset")}"' in page
