"""The sign-up rate limit per client address, and the cleanup of sign-ups
whose address was never confirmed before the link expired."""

from __future__ import annotations

import io
import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from surveys.accounts import signup
from surveys.accounts.models import User
from surveys.authoring import services as authoring

pytestmark = pytest.mark.django_db

PASSWORD = "a long passphrase 42"


def _form(name: str) -> dict[str, str]:
    return {
        "username": name,
        "email": f"{name}@example.org",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }


@pytest.fixture
def limited(settings):
    """Sign-up open, at most two per address an hour, counters fresh."""
    settings.ACCOUNT_SIGNUP = "open"
    settings.RATE_LIMITS_ENABLED = True
    settings.SIGNUP_RATE = "2/3600"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"signup-{uuid.uuid4()}",
        }
    }


def test_sign_ups_past_the_rate_from_one_address_get_429_and_make_nothing(
    client, limited, mailoutbox
):
    for name in ("grace", "hopper"):
        assert client.post(reverse("signup"), _form(name)).status_code == 200
    refused = client.post(reverse("signup"), _form("lovelace"))
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many accounts were asked for from your network" in refused.text
    assert sorted(User.objects.values_list("username", flat=True)) == [
        "grace",
        "hopper",
    ]
    assert len(mailoutbox) == 2
    # Another address is counted on its own.
    other = client.post(reverse("signup"), _form("lovelace"), REMOTE_ADDR="192.0.2.7")
    assert other.status_code == 200


def test_reading_the_sign_up_page_is_never_counted(client, limited):
    for _ in range(5):
        assert client.get(reverse("signup")).status_code == 200
    assert client.post(reverse("signup"), _form("grace")).status_code == 200


def _made(name: str, *, days_ago: float, **fields) -> User:
    user = signup.signup_create(
        username=name, email=f"{name}@example.org", password=PASSWORD, site="x"
    )
    User.objects.filter(pk=user.pk).update(
        date_joined=timezone.now() - timedelta(days=days_ago), **fields
    )
    return user


def test_only_sign_ups_whose_link_expired_unconfirmed_are_deleted(settings, mailoutbox):
    settings.ACCOUNT_SIGNUP = "open"
    settings.PASSWORD_RESET_TIMEOUT = 3 * 24 * 3600
    _made("expired", days_ago=4)
    _made("fresh", days_ago=1)  # its link still works
    _made("confirmed", days_ago=9, email_verified_at=timezone.now(), is_active=True)
    _made("signed_in_once", days_ago=9, last_login=timezone.now())
    owner = _made("owner", days_ago=9)
    authoring.survey_create(owner=owner, title="Kept")
    out = io.StringIO()
    call_command("delete_unverified_signups", "--dry-run", stdout=out)
    assert "Would delete 1 unverified sign-up(s).\n  expired" in out.getvalue()
    assert User.objects.filter(username="expired").exists()

    call_command("delete_unverified_signups", stdout=io.StringIO())
    assert sorted(User.objects.values_list("username", flat=True)) == [
        "confirmed",
        "fresh",
        "owner",
        "signed_in_once",
    ]
