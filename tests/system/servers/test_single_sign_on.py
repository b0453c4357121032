"""Single sign-on against a real OpenID Connect provider in its own process.

The provider is tests/oidc_provider (django-oauth-toolkit, its own settings
and database) on a free port (``tests/system/identity_provider.py``);
Deniable is Django's live server configured for it.  A browser-like client
(requests, following redirects) starts at Deniable's "Sign in with …", signs
in at the provider, and comes back signed in: the authorization-code flow
with PKCE, the token exchange and the user info request are the real ones,
over loopback HTTP.
"""

from __future__ import annotations

import re

import pytest
import requests
from django.urls import reverse

from surveys.accounts.models import AuditEntry, User
from tests.system.identity_provider import PASSWORD, WithClient, started_provider

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def provider(start_module_process, tmp_path_factory) -> WithClient:
    """One provider for the module's tests; each signs in a user of its own."""
    return started_provider(start_module_process, tmp_path_factory.mktemp("oidc"))


def sign_in_through_the_provider(live_url: str, username: str) -> requests.Response:
    """Click "Sign in with …" on Deniable's sign-in page, sign in at the provider."""
    browser = requests.Session()
    login = browser.get(live_url + reverse("login"), timeout=30)
    button = re.search(r'href="(/accounts/oidc/authenticate/[^"]*)"', login.text)
    assert button, "the sign-in page offers no single sign-on"
    assert "Sign in with Test University" in login.text
    at_provider = browser.get(live_url + button.group(1), timeout=30)
    assert "/login/" in at_provider.url, at_provider.url
    return browser.post(
        at_provider.url,
        {"username": username, "password": PASSWORD},
        timeout=60,
    )


def test_a_researcher_signs_in_through_the_provider_and_it_is_audited(
    live_server, single_sign_on
):
    single_sign_on("grace", "grace@uni.example", create=True)
    landed = sign_in_through_the_provider(live_server.url, "grace")
    assert landed.status_code == 200
    assert landed.url == live_server.url + reverse("authoring:survey_list")
    assert "Signed in as grace" in landed.text
    user = User.objects.get(email="grace@uni.example")
    assert user.username == "grace" and not user.has_usable_password()
    entry = AuditEntry.objects.get(action=AuditEntry.Action.SIGN_IN_SSO)
    assert (entry.actor, entry.detail) == (user, "as grace@uni.example")


def test_an_existing_researcher_is_found_by_address_and_no_account_is_made(
    live_server, single_sign_on, django_user_model
):
    ada = django_user_model.objects.create_user("ada", email="ADA@uni.example")
    single_sign_on("ada.lovelace", "ada@uni.example", create=False)
    landed = sign_in_through_the_provider(live_server.url, "ada.lovelace")
    assert "Signed in as ada" in landed.text
    assert list(User.objects.all()) == [ada]


def test_an_unknown_address_is_refused_when_accounts_are_not_made(
    live_server, single_sign_on
):
    single_sign_on("mallory", "mallory@uni.example", create=False)
    landed = sign_in_through_the_provider(live_server.url, "mallory")
    assert "Signed in as" not in landed.text
    assert not User.objects.exists()
    assert not AuditEntry.objects.exists()
