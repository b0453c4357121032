"""manage.py create_researcher: the documented way to make a researcher account."""

import pytest
from django.core.management import CommandError, call_command

from surveys.accounts.models import User


@pytest.fixture(autouse=True)
def _fast_password_hashing() -> None:
    """Keep the production hashers here (tests/surveys/conftest.py swaps them)."""


@pytest.mark.django_db
def test_creates_a_researcher_from_the_environment_password(monkeypatch):
    monkeypatch.setenv("RESEARCHER_PASSWORD", "a long unusual passphrase 42")
    call_command("create_researcher", "grace", "--email", "g@example.org", "--no-input")
    user = User.objects.get(username="grace")
    assert user.check_password("a long unusual passphrase 42")
    assert user.email == "g@example.org"


@pytest.mark.django_db
def test_refuses_a_weak_password_and_creates_nothing(monkeypatch):
    monkeypatch.setenv("RESEARCHER_PASSWORD", "123")
    with pytest.raises(CommandError, match="too short"):
        call_command("create_researcher", "grace", "--no-input")
    assert not User.objects.exists()


@pytest.mark.django_db
def test_refuses_a_taken_username(monkeypatch):
    User.objects.create_user("grace", password="x")
    monkeypatch.setenv("RESEARCHER_PASSWORD", "a long unusual passphrase 42")
    with pytest.raises(CommandError, match="already taken"):
        call_command("create_researcher", "Grace", "--no-input")
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_no_input_without_a_password_creates_nothing(monkeypatch):
    monkeypatch.delenv("RESEARCHER_PASSWORD", raising=False)
    with pytest.raises(CommandError, match="RESEARCHER_PASSWORD"):
        call_command("create_researcher", "grace", "--no-input")
    assert not User.objects.exists()
