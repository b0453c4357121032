"""The snapshot head in the shared cache: reads without snapshot or question
queries, and no read after a change sees the head from before it."""

from __future__ import annotations

import re
import socket
from dataclasses import asdict

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.analysis import selectors, snapshot_heads
from surveys.analysis.models import QuestionBins, ResultsSettings
from surveys.authoring import services as authoring
from tests.conftest import redis_cache
from tests.surveys.analysis.dashboard_support import make_survey, simulate

# Changes bump the generation when their transaction commits: real commits.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shared(settings, redis_url):
    settings.CACHES = redis_cache(redis_url, prefix="heads")
    return settings


@pytest.fixture
def answered(ada):
    survey = make_survey(ada)
    simulate(survey, 100)
    return survey


def _ns(html: str) -> set[str]:
    return set(re.findall(r'data-field="n">(\d+)<', html))


def _head_queries(queries) -> list[str]:
    """Queries that read a snapshot, bins, or the questions' own rows."""
    return [
        q["sql"]
        for q in queries.captured_queries
        if "analysis_resultsnapshot" in q["sql"]
        or "analysis_questionbins" in q["sql"]
        or q["sql"].startswith('SELECT "authoring_question"')
    ]


def _reword(survey, text: str) -> None:
    question = survey.questions.order_by("position").first()
    question.text = text
    question.save(update_fields=["text"])


def _generation(survey) -> int:
    return cache.get(snapshot_heads._generation_key(survey.pk))


def test_a_second_read_takes_the_snapshot_head_from_the_shared_cache(
    shared, ada_client, answered
):
    url = reverse("analysis:dashboard", args=[answered.pk])
    assert ada_client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        second = ada_client.get(url)
    assert _ns(second.content.decode()) == {"100"}
    assert _head_queries(queries) == []


def test_the_head_from_the_cache_equals_the_head_read_from_the_database(
    shared, answered
):
    snapshot_heads.snapshot_head(survey_id=answered.pk)  # stores it
    cached = snapshot_heads.snapshot_head(survey_id=answered.pk)
    assert cached == snapshot_heads.head_from_database(survey_id=answered.pk)
    assert cached is not None and cached.current_definition


def test_a_new_snapshot_is_read_at_once_after_a_cached_head(
    shared, ada_client, answered
):
    url = reverse("analysis:dashboard", args=[answered.pk])
    assert _ns(ada_client.get(url).content.decode()) == {"100"}
    simulate(answered, 20, seed=8)
    assert _ns(ada_client.get(url).content.decode()) == {"120"}


def test_editing_a_question_makes_a_cached_head_stale_at_once(shared, answered):
    assert not selectors.latest_results(survey=answered).stale  # head cached
    _reword(answered, "A new wording?")
    assert selectors.latest_results(survey=answered).stale


def test_reordering_questions_makes_a_cached_head_stale_at_once(shared, answered):
    assert not selectors.latest_results(survey=answered).stale
    second = answered.questions.order_by("position")[1]
    authoring.question_move(question=second, direction="up")
    assert selectors.latest_results(survey=answered).stale


def test_changing_a_questions_bins_makes_a_cached_head_stale_at_once(shared, answered):
    assert not selectors.latest_results(survey=answered).stale
    numeric = answered.questions.filter(kind="numeric").first()
    QuestionBins.objects.create(question=numeric, cuts=[0, 5, 10])
    assert selectors.latest_results(survey=answered).stale


def test_a_reader_that_raced_a_change_cannot_serve_the_head_from_before_it(
    shared, answered
):
    before = snapshot_heads.snapshot_head(survey_id=answered.pk)
    generation = _generation(answered)
    _reword(answered, "Raced wording?")
    # The racing reader read the database before the change and stores its
    # head late, under the generation it read first.
    cache.set(snapshot_heads._head_key(answered.pk), (generation, asdict(before)))
    assert _generation(answered) != generation
    assert not snapshot_heads.snapshot_head(survey_id=answered.pk).current_definition


def test_a_lost_generation_starts_afresh_rather_than_from_an_old_head(shared, answered):
    snapshot_heads.snapshot_head(survey_id=answered.pk)
    generation = _generation(answered)
    cache.delete(snapshot_heads._generation_key(answered.pk))  # e.g. evicted
    _reword(answered, "Unseen wording?")
    head = snapshot_heads.snapshot_head(survey_id=answered.pk)
    assert _generation(answered) != generation
    assert not head.current_definition


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_cache_reads_the_head_from_the_database(
    settings, ada_client, answered
):
    settings.CACHES = redis_cache(
        f"redis://127.0.0.1:{_closed_port()}/0", prefix="heads"
    )
    url = reverse("analysis:dashboard", args=[answered.pk])
    response = ada_client.get(url)
    assert response.status_code == 200 and _ns(response.content.decode()) == {"100"}


def test_without_a_shared_cache_every_read_takes_the_head_from_the_database(
    ada_client, answered
):
    url = reverse("analysis:dashboard", args=[answered.pk])
    ada_client.get(url)
    with CaptureQueriesContext(connection) as queries:
        ada_client.get(url)
    assert any("analysis_resultsnapshot" in sql for sql in _head_queries(queries))


def test_a_read_with_nothing_pending_counts_in_one_query(shared, answered):
    selectors.latest_results(survey=answered)  # the head and the document
    with CaptureQueriesContext(connection) as queries:
        state = selectors.latest_results(survey=answered)
    assert len(queries.captured_queries) == 1
    assert state.results.pending_reports == 0 and not state.stale


def _watermark_queries(queries) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if "analysis_tallywatermark" in q["sql"]
    ]


@pytest.mark.parametrize(
    "name",
    ["analysis:dashboard", "analysis:dashboard_live", "analysis:export_estimates_csv"],
)
def test_a_read_loads_the_survey_with_what_arrived_since_in_one_query(
    shared, ada_client, answered, name
):
    url = reverse(name, args=[answered.pk])
    assert ada_client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert ada_client.get(url).status_code == 200
    (query,) = _watermark_queries(queries)
    assert 'FROM "authoring_survey"' in query
    assert not any(
        sql.startswith('SELECT "authoring_survey"') and sql != query
        for sql in (q["sql"] for q in queries.captured_queries)
    )


def test_a_reader_without_access_gets_a_404_not_the_results(
    shared, answered, client, bob
):
    client.force_login(bob)
    url = reverse("analysis:export_estimates_json", args=[answered.pk])
    assert client.get(url).status_code == 404


def test_newer_responses_are_counted_under_a_cached_head(shared, ada_client, answered):
    url = reverse("analysis:dashboard_live", args=[answered.pk])
    assert ada_client.get(url).json()["pending_responses"] == 0
    shared.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    simulate(answered, 3, seed=9)  # held back by batching: the head stays
    data = ada_client.get(url).json()
    assert data["pending_responses"] == 3 and _ns(data["html"]) == {"100"}


def test_choosing_the_consistent_method_makes_a_cached_head_stale_at_once(
    shared, answered
):
    assert not selectors.latest_results(survey=answered).stale
    # Stored without queueing the recomputation (the page's service queues one,
    # whose new snapshot would forget the head by itself).
    ResultsSettings.objects.create(survey=answered, consistent_method="mle")
    assert selectors.latest_results(survey=answered).stale
