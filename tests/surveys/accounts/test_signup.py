"""Self sign-up: off by default, open, or with an administrator's approval.

An account made on the sign-up page cannot sign in until the link emailed to
its address is followed and, under ``SIGNUP=approval``, an administrator
approves it (docs/accounts.md).
"""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from surveys.accounts.models import User
from tests.conftest import free_port, project_settings

pytestmark = pytest.mark.django_db

PASSWORD = "a long passphrase 42"
FORM = {
    "username": "grace",
    "email": "grace@example.org",
    "password1": PASSWORD,
    "password2": PASSWORD,
}


@pytest.fixture
def mode(settings):
    def set_mode(value: str) -> None:
        settings.ACCOUNT_SIGNUP = value

    return set_mode


def link_in(message) -> str:
    found = re.search(
        r"https?://testserver(/accounts/signup/verify/\S+/)", message.body
    )
    assert found, message.body
    return found.group(1)


def signs_in(client, username: str = "grace") -> bool:
    response = client.post(
        reverse("login"), {"username": username, "password": PASSWORD}
    )
    return response.status_code == 302


def test_sign_up_is_off_by_default(client, mailoutbox):
    assert client.get(reverse("signup")).status_code == 404
    assert client.post(reverse("signup"), FORM).status_code == 404
    assert not User.objects.exists()
    assert mailoutbox == []
    assert b"/accounts/signup/" not in client.get(reverse("login")).content


def test_an_open_sign_up_needs_the_emailed_link_before_signing_in(
    client, mode, mailoutbox
):
    mode("open")
    assert reverse("signup").encode() in client.get(reverse("login")).content
    response = client.post(reverse("signup"), FORM)
    assert response.status_code == 200
    assert b"grace@example.org" in response.content
    user = User.objects.get(username="grace")
    assert (user.is_active, user.email_verified_at) == (False, None)
    assert not signs_in(client)
    (message,) = mailoutbox
    assert message.to == ["grace@example.org"]
    link = link_in(message)
    # Opening the link (a mail scanner does) changes nothing; the button does.
    assert b"Confirm" in client.get(link).content
    assert not User.objects.get(pk=user.pk).is_active
    done = client.post(link)
    assert b"The account is ready" in done.content
    user.refresh_from_db()
    assert user.is_active and user.email_verified_at is not None
    assert signs_in(client)
    client.logout()
    assert client.post(link).status_code == 400


def test_an_approval_sign_up_waits_for_an_administrator(
    client, mode, mailoutbox, settings, django_user_model
):
    mode("approval")
    settings.ADMINS = [("Admin", "admin@example.org")]
    client.post(reverse("signup"), FORM)
    done = client.post(link_in(mailoutbox[0]))
    assert b"An administrator now approves the account" in done.content
    user = User.objects.get(username="grace")
    assert user.awaiting_approval and not user.is_active
    assert not signs_in(client)
    assert mailoutbox[1].to == ["admin@example.org"]
    assert "grace" in mailoutbox[1].subject

    root = django_user_model.objects.create_superuser("root", "root@example.org")
    admin = type(client)()
    admin.force_login(root)
    changelist = reverse("admin:accounts_user_changelist")
    assert b"grace" in admin.get(changelist + "?awaiting_approval__exact=1").content
    response = admin.post(
        changelist,
        {"action": "approve", "_selected_action": [user.pk]},
        follow=True,
    )
    assert b"1 account(s) approved" in response.content
    user.refresh_from_db()
    assert user.is_active and not user.awaiting_approval
    assert mailoutbox[2].to == ["grace@example.org"]
    assert "/accounts/login/" in mailoutbox[2].body
    assert signs_in(client)


def test_approving_before_the_address_is_confirmed_still_needs_the_link(
    client, mode, mailoutbox
):
    from surveys.accounts import signup

    mode("approval")
    client.post(reverse("signup"), FORM)
    user = User.objects.get(username="grace")
    (approved,) = signup.accounts_approve(users=[user], site="http://testserver")
    assert not approved.is_active
    assert "Confirm your address" in mailoutbox[-1].body
    client.post(link_in(mailoutbox[0]))
    user.refresh_from_db()
    assert user.is_active


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"username": "ADA"}, "That username is taken."),
        ({"email": "Ada@Example.org"}, "An account already uses that address"),
        ({"password1": "zq8-vbn!ka2", "password2": "zq8-vbn!ka2"}, "12 characters"),
        ({"password2": "another passphrase 42"}, "The two passwords differ."),
        ({"email": "not an address"}, "Enter a valid email address."),
        ({"username": "grace hopper"}, "Enter a valid username."),
        ({"username": "g" * 151}, "at most 150 characters"),
    ],
)
def test_a_refused_sign_up_says_why_and_makes_nothing(
    client, mode, mailoutbox, django_user_model, change, message
):
    mode("open")
    django_user_model.objects.create_user("ada", email="ada@example.org")
    response = client.post(reverse("signup"), {**FORM, **change})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert list(User.objects.values_list("username", flat=True)) == ["ada"]
    assert mailoutbox == []


def test_a_forged_verification_link_changes_nothing(client, mode):
    mode("open")
    client.post(reverse("signup"), FORM)
    url = reverse("signup_verify", kwargs={"uidb64": "MQ", "token": "forged-token"})
    response = client.post(url)
    assert response.status_code == 400
    assert b"This link does not work" in response.content
    assert not User.objects.get(username="grace").is_active


@pytest.mark.parametrize(
    ("language", "title"),
    [("fr", "Créer un compte"), ("es", "Crear una cuenta")],
)
def test_the_sign_up_page_is_in_the_browsers_language(mode, language, title):
    from django.test import Client

    mode("approval")
    html = Client(HTTP_ACCEPT_LANGUAGE=language).get(reverse("signup")).content
    assert f"<h1>{title}</h1>".encode() in html


def test_a_sign_up_mode_that_makes_no_sense_stops_start_up():
    with pytest.raises(ImproperlyConfigured, match=re.escape("SIGNUP='maybe'")):
        project_settings(SIGNUP="maybe")


def test_a_sign_up_whose_email_cannot_be_sent_makes_no_account(client, mode, settings):
    mode("open")
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()
    response = client.post(reverse("signup"), FORM)
    assert response.status_code == 400
    assert b"could not be sent, so no account was made" in response.content
    assert not User.objects.exists()
