"""Single sign-on against a real OpenID Connect provider in its own process.

The provider is tests/oidc_provider (django-oauth-toolkit, its own settings
and database) on a free port; Deniable is Django's live server configured
for it.  A browser-like client (requests, following redirects) starts at
Deniable's "Sign in with …", signs in at the provider, and comes back signed
in: the authorization-code flow with PKCE, the token exchange and the user
info request are the real ones, over loopback HTTP.
"""

from __future__ import annotations

import re
import sys

import pytest
import requests
from django.urls import reverse

from surveys.accounts.models import AuditEntry, User
from tests.conftest import ROOT, clean_env, free_port, wait_for_http

pytestmark = pytest.mark.django_db(transaction=True)

CLIENT_ID, SECRET = "deniable-test-client", "a client secret of the test 42"
PASSWORD = "the provider's passphrase 42"


@pytest.fixture
def provider(start_process, tmp_path):
    """The provider's base URL, once it answers its discovery document."""
    port = free_port()
    env = clean_env(
        DJANGO_SETTINGS_MODULE="tests.oidc_provider.settings",
        OIDC_PROVIDER_DB=str(tmp_path / "provider.sqlite3"),
    )

    def run(*args: str) -> None:
        import subprocess

        done = subprocess.run(
            [sys.executable, *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr

    run("-m", "django", "migrate", "--noinput")
    base = f"http://127.0.0.1:{port}"

    def with_client(redirect_uri: str, username: str, email: str) -> str:
        run(
            "-m",
            "tests.oidc_provider.setup_provider",
            username,
            email,
            PASSWORD,
            CLIENT_ID,
            SECRET,
            redirect_uri,
        )
        start_process(
            [
                sys.executable,
                "-m",
                "django",
                "runserver",
                f"127.0.0.1:{port}",
                "--noreload",
            ],
            env,
            name="oidc-provider",
        )
        wait_for_http(f"{base}/o/.well-known/openid-configuration")
        return base

    return with_client


@pytest.fixture
def single_sign_on(settings, live_server, provider):
    """Deniable configured for the provider, as OIDC_* variables would do it."""

    def configure(username: str, email: str, *, create: bool) -> str:
        callback = live_server.url + reverse("oidc_authentication_callback")
        base = provider(callback, username, email)
        settings.OIDC_RP_CLIENT_ID = CLIENT_ID
        settings.OIDC_RP_CLIENT_SECRET = SECRET
        settings.OIDC_OP_AUTHORIZATION_ENDPOINT = f"{base}/o/authorize/"
        settings.OIDC_OP_TOKEN_ENDPOINT = f"{base}/o/token/"
        settings.OIDC_OP_USER_ENDPOINT = f"{base}/o/userinfo/"
        settings.OIDC_OP_JWKS_ENDPOINT = f"{base}/o/.well-known/jwks.json"
        settings.OIDC_CREATE_USER = create
        settings.OIDC_PROVIDER_NAME = "Test University"
        return base

    return configure


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
