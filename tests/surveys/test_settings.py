"""Settings come from the environment; production refuses unsafe configuration."""

import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from surveys.env import env_bool, env_int, env_list
from tests.conftest import clean_env, project_settings, run_manage

REAL_KEY = "k" * 20 + "0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGH"
PRODUCTION = {
    "DENIABLE_PRODUCTION": "true",
    "SECRET_KEY": REAL_KEY,
    "ALLOWED_HOSTS": "surveys.example.org",
    # Production refuses a per-process cache (surveys/operations/checks.py);
    # the check reads the URL and connects to nothing.
    "CACHE_URL": "redis://127.0.0.1:6379/2",
}


@pytest.mark.slow  # Django's deploy checks need a process of their own
def test_check_deploy_passes_with_no_warnings_in_production():
    run = run_manage(
        "check", "--deploy", "--fail-level", "WARNING", env=clean_env(**PRODUCTION)
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"SECRET_KEY": ""}, "SECRET_KEY"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY"),
        ({"DEBUG": "true"}, "DEBUG"),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS"),
    ],
)
def test_production_refuses_to_start_with_unsafe_setting(override, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        project_settings(**{**PRODUCTION, **override})


@pytest.mark.slow  # loads every app's migration graph: about 5 CPU-seconds
@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_tasks_run_in_process_when_no_broker_is_configured():
    assert project_settings()["CELERY_TASK_ALWAYS_EAGER"] is True


def test_a_broker_url_sends_tasks_to_workers(redis_url):
    loaded = project_settings(CELERY_BROKER_URL=redis_url)
    assert loaded["CELERY_TASK_ALWAYS_EAGER"] is False


def test_env_bool_rejects_a_value_that_is_not_boolean(monkeypatch):
    monkeypatch.setenv("SOME_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="SOME_FLAG='maybe'"):
        env_bool("SOME_FLAG", False)


@pytest.mark.parametrize(
    ("raw", "expected"), [("yes", True), ("OFF", False), ("1", True)]
)
def test_env_bool_reads_common_spellings(monkeypatch, raw, expected):
    monkeypatch.setenv("SOME_FLAG", raw)
    assert env_bool("SOME_FLAG", not expected) is expected


def test_env_int_rejects_a_value_that_is_not_an_integer(monkeypatch):
    monkeypatch.setenv("SOME_NUMBER", "12a")
    with pytest.raises(ImproperlyConfigured, match="SOME_NUMBER"):
        env_int("SOME_NUMBER", 3)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch):
    monkeypatch.setenv("SOME_LIST", " a.example, ,b.example ")
    assert env_list("SOME_LIST") == ["a.example", "b.example"]


def test_celery_is_configured_for_at_least_once_delivery(settings):
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is True
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1
    assert settings.CELERY_ACCEPT_CONTENT == ["json"]
    assert (
        settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
        > settings.CELERY_TASK_TIME_LIMIT
    )


def test_every_environment_variable_the_settings_read_is_in_the_configuration_table():
    # docs/configuration.md's table names each variable in its first cell
    # ("`A`", "`A` / `B`", "`A`, `B`"); a variable read but not listed there is
    # a setting an operator cannot find.
    root = Path(__file__).resolve().parents[2]
    read = set()
    sources = [*(root / "surveys" / "settings").glob("*.py"), root / "gunicorn.conf.py"]
    for source in sources:
        text = source.read_text()
        read |= set(
            re.findall(r'(?:env_\w+|os\.environ\.get)\(\s*"([A-Z][A-Z0-9_]*)"', text)
        )
    documented = set()
    for line in (root / "docs" / "configuration.md").read_text().splitlines():
        if line.startswith("| `"):
            documented |= set(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split("|")[1]))
    assert read, "no variable found: the pattern no longer matches the settings"
    assert sorted(read - documented) == []
