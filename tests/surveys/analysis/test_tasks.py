"""Refreshes are enqueued after a submission commits; a dead broker loses nothing."""

from __future__ import annotations

import time
import uuid

import pytest
import redis
from django.core.cache import cache
from django.urls import reverse

from surveys.analysis import tasks
from surveys.analysis.results import selectors
from surveys.collection import demo
from surveys.collection.models import Report, Submission
from tests.conftest import free_port
from tests.surveys.analysis.conftest import (
    FAMILIES,
    broker,
    direct_stats,
    submit_bulk,
    submit_one,
    tally_stats,
)
from tests.surveys.collection.conftest import PRIVATE_COUNT, body

pytestmark = pytest.mark.django_db


def delete_keys(client: redis.Redis, pattern: str) -> None:
    """Delete this test's own keys (never the rest of a Redis others may share)."""
    keys = list(client.scan_iter(match=pattern))
    if keys:
        client.delete(*keys)


def test_submission_enqueues_a_refresh_that_advances_tallies_on_commit(
    family_survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        outcome = submit_one(family_survey)

    assert outcome.created
    assert len(callbacks) == 1
    assert selectors.pending_report_count(survey_id=family_survey.pk) == 0
    assert {stat["n"] for stat in tally_stats(family_survey).values()} == {1}
    assert tally_stats(family_survey) == direct_stats(family_survey)


def test_no_refresh_is_enqueued_before_the_submission_commits(
    family_survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submit_one(family_survey)

    assert len(callbacks) == 1
    assert tally_stats(family_survey) == {}


def test_broker_down_still_stores_the_submission_and_reconciliation_catches_up(
    family_survey, django_capture_on_commit_callbacks, caplog
):
    started = time.monotonic()
    with (
        broker(f"redis://127.0.0.1:{free_port()}/10"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        outcome = submit_one(family_survey)
    elapsed = time.monotonic() - started

    assert outcome.created
    assert Submission.objects.filter(pk=outcome.submission.pk).exists()
    assert "could not enqueue a tally refresh" in caplog.text
    assert elapsed < 10
    assert selectors.pending_report_count(survey_id=family_survey.pk) == len(FAMILIES)
    assert selectors.surveys_with_pending_reports() == [family_survey.pk]

    assert tasks.reconcile_tallies() == [family_survey.pk]

    assert selectors.pending_report_count(survey_id=family_survey.pk) == 0
    assert tally_stats(family_survey) == direct_stats(family_survey)
    assert tasks.reconcile_tallies() == []


def test_enqueue_failure_is_reported_not_raised(family_survey):
    with broker(f"redis://127.0.0.1:{free_port()}/10"):
        assert tasks.send_refresh(family_survey.pk) is False


def test_refresh_task_run_twice_returns_the_same_watermark(family_survey):
    submit_bulk(family_survey, 5)
    first = tasks.refresh_survey_tallies(family_survey.pk)
    second = tasks.refresh_survey_tallies(family_survey.pk)

    assert first["folded"] == 5 * len(FAMILIES)
    assert second == {**first, "folded": 0}


def test_a_burst_of_submissions_enqueues_one_refresh(
    family_survey, django_capture_on_commit_callbacks, redis_url
):
    prefix = f"test-{uuid.uuid4().hex}:"
    client = redis.Redis.from_url(redis_url)
    cache.clear()
    try:
        with (
            broker(redis_url, key_prefix=prefix),
            django_capture_on_commit_callbacks(execute=True),
        ):
            for seed in range(5):
                assert submit_one(family_survey, seed=seed).created
        assert client.llen(f"{prefix}celery") == 1
    finally:
        delete_keys(client, f"{prefix}*")
        client.close()
        cache.clear()


def test_debounce_marker_lives_in_the_shared_redis_cache_every_process_sees(
    family_survey, django_capture_on_commit_callbacks, redis_url, settings
):
    """With CACHE_URL on Redis, a second web process finds the marker and skips."""
    prefix = f"test-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": prefix,
        }
    }
    client = redis.Redis.from_url(redis_url)
    try:
        with broker(redis_url, key_prefix=f"{prefix}-broker:"):
            with django_capture_on_commit_callbacks(execute=True):
                assert submit_one(family_survey, seed=1).created
            markers = client.keys(f"{prefix}:*analysis:refresh-queued:*")
            # Another process (its own connection) cannot add the marker again.
            other = redis.Redis.from_url(redis_url)
            assert not other.set(markers[0], 1, nx=True)
            other.close()
            with django_capture_on_commit_callbacks(execute=True):
                assert submit_one(family_survey, seed=2).created
        assert len(markers) == 1
        assert client.llen(f"{prefix}-broker:celery") == 1
    finally:
        delete_keys(client, f"{prefix}*")
        client.close()


@pytest.mark.django_db(transaction=True)
def test_a_post_whose_refresh_publish_fails_after_its_response_is_reconciled(
    researcher, client, caplog
):
    """The refresh is published after the response is sent; when that fails
    (broker down) the answer is stored and answered all the same, and the
    periodic reconciliation folds its reports: nothing accepted is lost."""
    survey, _ = demo.demo_survey(owner=researcher)
    url = reverse("collection:respond", args=[survey.public_token])
    with broker(f"redis://127.0.0.1:{free_port()}/10"):
        answered = client.post(url, body(survey), HTTP_ACCEPT="application/json")

    assert answered.status_code == 201
    assert "could not enqueue a tally refresh" in caplog.text
    stored = Report.objects.filter(survey=survey).count()
    assert stored == PRIVATE_COUNT
    assert selectors.pending_report_count(survey_id=survey.pk) == stored

    assert tasks.reconcile_tallies() == [survey.pk]

    assert selectors.pending_report_count(survey_id=survey.pk) == 0
    assert {stat["n"] for stat in tally_stats(survey).values()} == {1}
    assert tally_stats(survey) == direct_stats(survey)
