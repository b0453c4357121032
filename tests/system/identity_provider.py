"""The test identity provider: tests/oidc_provider (django-oauth-toolkit,
its own settings and database) started in its own process on a free port,
and Deniable's live server configured for it as the ``OIDC_*`` variables
would do it.  Used by the single sign-on server tests (one provider for the
module, :func:`started_provider`) and the import journey in Chromium (the
fixtures are imported by tests/system/conftest.py).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.urls import reverse

from tests.conftest import ROOT, Started, clean_env, free_port, wait_for_http

CLIENT_ID, SECRET = "deniable-test-client", "a client secret of the test 42"
PASSWORD = "the provider's passphrase 42"
# (redirect URI, username, email) -> the provider's base URL
WithClient = Callable[[str, str, str], str]


def _provider_env(folder: Path) -> dict[str, str]:
    return clean_env(
        DJANGO_SETTINGS_MODULE="tests.oidc_provider.settings",
        OIDC_PROVIDER_DB=str(folder / "provider.sqlite3"),
    )


def _run(env: dict[str, str], *args: str) -> None:
    """``python ARGS`` under the provider's settings; it must succeed."""
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


def _add_user(env: dict[str, str], redirect_uri: str, username: str, email: str):
    """The provider's user ``username`` and Deniable's client (made once)."""
    _run(
        env,
        "-m",
        "tests.oidc_provider.setup_provider",
        username,
        email,
        PASSWORD,
        CLIENT_ID,
        SECRET,
        redirect_uri,
    )


def _serve(start: Callable[..., Started], env: dict[str, str], port: int) -> str:
    """Start the provider's server; its base URL once it answers discovery."""
    address = f"127.0.0.1:{port}"
    start(
        [sys.executable, "-m", "django", "runserver", address, "--noreload"],
        env,
        name="oidc-provider",
    )
    base = f"http://{address}"
    wait_for_http(f"{base}/o/.well-known/openid-configuration")
    return base


@pytest.fixture
def provider(start_process, tmp_path) -> WithClient:
    """The provider's base URL, once it answers its discovery document."""
    port = free_port()
    env = _provider_env(tmp_path)
    _run(env, "-m", "django", "migrate", "--noinput")

    def with_client(redirect_uri: str, username: str, email: str) -> str:
        _add_user(env, redirect_uri, username, email)
        return _serve(start_process, env, port)

    return with_client


def started_provider(start: Callable[..., Started], folder: Path) -> WithClient:
    """A provider started once for several tests (``start``: the conftest's
    ``start_module_process``, which stops it after the last); each test adds
    its user, which signs in at once: the server reads its database at every
    request."""
    env = _provider_env(folder)
    _run(env, "-m", "django", "migrate", "--noinput")
    base = _serve(start, env, free_port())

    def with_client(redirect_uri: str, username: str, email: str) -> str:
        _add_user(env, redirect_uri, username, email)
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
