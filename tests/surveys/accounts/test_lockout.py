"""Sign-in lockout (django-axes) on both sign-in pages.

The default policy locks one account at one client address after 5 failures,
for 15 minutes from the last one; other accounts and other addresses go on.
"""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from tests.conftest import project_settings

pytestmark = pytest.mark.django_db

PASSWORD = "the right passphrase 42"
WRONG = "a wrong passphrase 42"
SIGN_IN_PAGES = ["/accounts/login/", "/admin/login/"]


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user(
        "ada", password=PASSWORD, is_staff=True, is_superuser=True
    )


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user(
        "bob", password=PASSWORD, is_staff=True, is_superuser=True
    )


def sign_in(client: Client, page: str, username: str, password: str, **extra):
    return client.post(page, {"username": username, "password": password}, **extra)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def fail(client: Client, page: str, times: int, username: str = "ada", **extra):
    for _ in range(times):
        response = sign_in(client, page, username, WRONG, **extra)
        assert response.status_code in {200, 429}


def lock(client: Client, page: str, username: str = "ada", **extra) -> None:
    """Fail as often as the policy allows (5), and see the account locked."""
    fail(client, page, 5, username, **extra)
    assert sign_in(client, page, username, PASSWORD, **extra).status_code == 429


@pytest.mark.parametrize("page", SIGN_IN_PAGES)
def test_fifty_wrong_passwords_then_the_right_one_is_refused_while_locked(
    client, ada, page
):
    fail(client, page, 50)
    response = sign_in(client, page, "ada", PASSWORD)
    assert response.status_code == 429
    assert not signed_in(client)
    assert b"Sign-in paused" in response.content
    assert "paused for 15 minutes" in response.content.decode()
    assert response["Retry-After"] == str(15 * 60)


@pytest.mark.parametrize("page", SIGN_IN_PAGES)
def test_the_fifth_failure_locks_and_the_fourth_does_not(client, ada, page):
    fail(client, page, 4)
    assert sign_in(client, page, "ada", WRONG).status_code == 429
    assert sign_in(client, page, "ada", PASSWORD).status_code == 429
    assert not signed_in(client)


def test_fewer_failures_than_the_limit_do_not_lock(client, ada):
    fail(client, "/accounts/login/", 4)
    response = sign_in(client, "/accounts/login/", "ada", PASSWORD)
    assert response.status_code == 302
    assert signed_in(client)


def test_a_successful_sign_in_resets_the_count(client, ada):
    fail(client, "/accounts/login/", 4)
    assert sign_in(client, "/accounts/login/", "ada", PASSWORD).status_code == 302
    client.logout()
    fail(client, "/accounts/login/", 4)
    assert sign_in(client, "/accounts/login/", "ada", PASSWORD).status_code == 302


@pytest.mark.parametrize("page", SIGN_IN_PAGES)
def test_a_lockout_leaves_other_accounts_at_the_same_address_alone(
    client, ada, bob, page
):
    lock(client, page)
    response = sign_in(client, page, "bob", PASSWORD)
    assert response.status_code == 302
    assert signed_in(client)


@pytest.mark.parametrize("page", SIGN_IN_PAGES)
def test_a_lockout_leaves_the_same_account_at_another_address_alone(ada, page):
    attacker, owner = Client(), Client()
    lock(attacker, page, REMOTE_ADDR="203.0.113.9")
    response = sign_in(owner, page, "ada", PASSWORD, REMOTE_ADDR="198.51.100.7")
    assert response.status_code == 302
    assert signed_in(owner)


def test_a_lockout_ends_after_the_cool_off(client, ada):
    lock(client, "/accounts/login/")
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - timedelta(minutes=15, seconds=1)
    )
    assert sign_in(client, "/accounts/login/", "ada", PASSWORD).status_code == 302


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("axes_reset_username", ["ada"]),
        ("axes_reset_ip", ["127.0.0.1"]),
        ("axes_reset", []),
    ],
)
def test_an_admin_unlocks_with_the_axes_commands(client, ada, command, args):
    lock(client, "/accounts/login/")
    output = io.StringIO()
    call_command(command, *args, stdout=output)
    assert "1 attempts removed" in output.getvalue()
    response = sign_in(client, "/accounts/login/", "ada", PASSWORD)
    assert response.status_code == 302
    assert signed_in(client)


def test_failures_are_counted_in_the_database_by_account_and_address(client, ada):
    fail(client, "/accounts/login/", 3)
    attempt = AccessAttempt.objects.get()
    assert (attempt.username, attempt.ip_address) == ("ada", "127.0.0.1")
    assert attempt.failures_since_start == 3


def _lockout_settings(**env: str) -> str:
    """The lockout policy the project's settings read from ``env`` (and check
    there, at import), printed as ``limit cool-off parameters``."""
    s = project_settings(**env)
    return (
        f"{s['AXES_FAILURE_LIMIT']} {s['AXES_COOLOFF_TIME']} "
        f"{s['AXES_LOCKOUT_PARAMETERS']}"
    )


def test_the_lockout_policy_comes_from_the_environment():
    assert _lockout_settings() == "5 0:15:00 [['username', 'ip_address']]"
    assert (
        _lockout_settings(
            LOGIN_FAILURE_LIMIT="3",
            LOGIN_LOCKOUT_MINUTES="60",
            LOGIN_LOCKOUT_PARAMETERS="username,ip_address",
        )
        == "3 1:00:00 ['username', 'ip_address']"
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("LOGIN_FAILURE_LIMIT", "0"),
        ("LOGIN_LOCKOUT_MINUTES", "0"),
        ("LOGIN_LOCKOUT_PARAMETERS", "password"),
        ("LOGIN_LOCKOUT_PARAMETERS", ""),
    ],
)
def test_a_lockout_policy_that_makes_no_sense_is_refused(variable, value):
    with pytest.raises(ImproperlyConfigured, match=variable):
        project_settings(**{variable: value})


@pytest.mark.parametrize("page", SIGN_IN_PAGES)
def test_an_overlong_username_is_refused_without_a_server_error(client, page):
    for _ in range(6):
        response = sign_in(client, page, "9" * 5000, WRONG)
        assert response.status_code == 200
    assert b"150 characters" in response.content
    assert not AccessAttempt.objects.exists()


def test_failures_are_counted_under_the_username_cut_to_its_longest(rf, ada):
    from surveys.accounts.lockout import lockout_username

    request = rf.post("/accounts/login/", {"username": "x" * 300})
    assert lockout_username(request, None) == "x" * 150
    assert lockout_username(request, {"username": "a\x00b"}) == "ab"
    assert lockout_username(rf.post("/accounts/login/"), None) is None
