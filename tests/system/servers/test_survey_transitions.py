"""Timed transitions with real servers: a survey opens at its date without any
beat, and beat (with a worker) then emails the owner exactly once."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from django.utils import timezone

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from tests.conftest import clean_env, free_port, wait_for_http
from tests.surveys.compose import service_command

pytestmark = pytest.mark.django_db(transaction=True)

OPENS_IN_SECONDS = 1
MAIL_LINE = "Open Deniable to see its responses and results."
TRANSITIONS = "surveys.authoring.tasks.notify_survey_transitions["


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (http)
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def finished_runs(worker_log: str) -> int:
    """How many runs of the transitions task the worker's log says finished."""
    return sum(
        TRANSITIONS in line and "] succeeded in " in line
        for line in worker_log.splitlines()
    )


def wait_until(condition, timeout: float, describe) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, describe()
        time.sleep(0.2)


def test_a_survey_opens_at_its_date_without_beat_and_beat_sends_one_email(
    start_process, redis_url, test_database_url, django_user_model, tmp_path
):
    owner = django_user_model.objects.create_user(
        "ada", email="ada@example.org", password="x" * 16
    )
    survey = services.survey_create(owner=owner, title="Opens soon")
    services.question_create(
        survey=survey, text="Ever cheated?", privacy=PrivacyConfig(kind="yes_no")
    )
    survey = services.survey_publish(survey=survey, user=owner)

    # The web server alone: no broker, no worker, no beat.
    port = free_port()
    web_env = clean_env(
        DATABASE_URL=test_database_url,
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="1",
    )
    start_process(service_command("web"), web_env, name="gunicorn")
    wait_for_http(f"http://127.0.0.1:{port}/healthz")
    consent = f"http://127.0.0.1:{port}/s/{survey.public_token}/"
    Survey.objects.filter(pk=survey.pk).update(
        opens_at=timezone.now() + timedelta(hours=1)
    )
    assert status_of(consent) == 403  # "not open yet", with the opening date
    # The date moved to a moment from now (however long the server took to
    # start): once it has passed, the survey is open.
    opens_at = timezone.now() + timedelta(seconds=OPENS_IN_SECONDS)
    Survey.objects.filter(pk=survey.pk).update(opens_at=opens_at)
    wait_until(
        lambda: timezone.now() > opens_at + timedelta(seconds=0.2),
        OPENS_IN_SECONDS + 5,
        lambda: "clock",
    )
    assert status_of(consent) == 200  # open, and nothing ran at the opening time
    survey.refresh_from_db()
    assert not survey.notified_open

    # Beat (every second) and a worker: the owner is told once.
    env = clean_env(
        DATABASE_URL=test_database_url,
        CELERY_BROKER_URL=redis_url,
        CELERY_RESULT_BACKEND=redis_url,
        SURVEY_TRANSITIONS_SECONDS="1",
    )
    worker = start_process(
        [*service_command("worker"), "--concurrency", "1"], env, name="worker"
    )
    beat_command = service_command("beat")
    beat_command[beat_command.index("--schedule") + 1] = str(tmp_path / "schedule")
    beat = start_process(beat_command, env, name="beat")

    def logs() -> str:
        return f"--- worker ---\n{worker.output()}\n--- beat ---\n{beat.output()}"

    def notified() -> bool:
        survey.refresh_from_db()
        return survey.notified_open and MAIL_LINE in worker.output()

    wait_until(notified, 90, logs)
    runs = finished_runs(worker.output())
    # Several more ticks run the task again, and it sends nothing more.
    wait_until(lambda: finished_runs(worker.output()) >= runs + 3, 30, logs)
    assert worker.output().count(MAIL_LINE) == 1, worker.output()
    assert "To: ada@example.org" in worker.output()
