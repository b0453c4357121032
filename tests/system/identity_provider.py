"""The test identity provider: tests/oidc_provider (django-oauth-toolkit,
its own settings and database) started in its own process on a free port,
and Deniable's live server configured for it as the ``OIDC_*`` variables
would do it.  Used by the single sign-on server tests and the import
journey in Chromium (the fixtures are imported by tests/system/conftest.py).
"""

from __future__ import annotations

import sys

import pytest
from django.urls import reverse

from tests.conftest import ROOT, clean_env, free_port, wait_for_http

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
