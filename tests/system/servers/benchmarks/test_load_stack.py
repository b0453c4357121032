"""The load benchmark, run small: the real stack under concurrent respondents.

gunicorn and two Celery workers (the compose commands) run against the test
PostgreSQL database and a Redis server of the test's own; eight concurrent
clients send about 150 submissions as the browser would.
"""

from __future__ import annotations

import pytest

from benchmarks import harness, load

SUBMISSIONS = 150


@pytest.mark.django_db(transaction=True)
def test_under_load_every_accepted_submission_is_stored_and_tallied_once(
    test_database_url, own_redis, tmp_path
):
    survey = harness.create_survey()
    stack = harness.Stack(
        database_url=test_database_url,
        broker_url=own_redis.url(),
        web_workers=2,
        celery_workers=2,
        log_dir=tmp_path,
    )
    with stack:
        result = load.run_load(
            port=stack.port,
            survey_id=survey.pk,
            path=harness.respond_path(survey),
            broker_url=own_redis.url(),
            concurrency=8,
            duration=40,
            ping_duration=2,
            max_submissions=SUBMISSIONS,
            drain_timeout=30,
        )
        logs = "\n".join(f"--- {k} ---\n{v[-3000:]}" for k, v in stack.logs().items())
    report = f"{load.format_result(result)}\n{logs}"

    consistency = result.consistency
    assert consistency.problems() == [], report
    assert consistency.server_errors == consistency.failed_requests == 0, report
    assert consistency.accepted == consistency.stored == SUBMISSIONS, report
    assert set(consistency.tallied.values()) == {SUBMISSIONS}, report
    assert consistency.recount_equal, report
