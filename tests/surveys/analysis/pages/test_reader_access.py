"""Researchers' reads with the shared cache: access is checked on every read,
so sharing and removing a co-researcher take effect at once."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.api_tokens.services import api_token_create
from surveys.authoring import people
from tests.conftest import redis_cache
from tests.surveys.analysis.dashboard_support import make_survey, simulate

# Cache generations are bumped when transactions commit: real commits.
pytestmark = pytest.mark.django_db(transaction=True)

READS = ["dashboard", "dashboard_live", "export_estimates_csv", "export_estimates_json"]


@pytest.fixture(autouse=True)
def shared(settings, redis_url):
    settings.CACHES = redis_cache(redis_url, prefix="reader-access")
    return settings


@pytest.fixture
def shared_with_bob(ada, bob):
    survey = make_survey(ada)
    simulate(survey, 40)
    people.collaborator_add(survey=survey, user=ada, name_or_email="bob", role="viewer")
    return survey


def _statuses(client, survey) -> dict[str, int]:
    return {
        name: client.get(reverse(f"analysis:{name}", args=[survey.pk])).status_code
        for name in READS
    }


def test_a_removed_co_researcher_loses_every_read_at_once(
    client, bob, ada, shared_with_bob
):
    client.force_login(bob)
    for _ in range(2):  # the second read is served from what the first cached
        assert set(_statuses(client, shared_with_bob).values()) == {200}
    membership = shared_with_bob.collaborators.get(user=bob)
    people.collaborator_remove(
        survey=shared_with_bob, user=ada, collaborator_id=membership.pk
    )
    assert set(_statuses(client, shared_with_bob).values()) == {404}


def test_a_co_researcher_added_reads_the_results_at_once(client, ada, bob):
    survey = make_survey(ada)
    simulate(survey, 40)
    client.force_login(bob)
    assert set(_statuses(client, survey).values()) == {404}
    people.collaborator_add(survey=survey, user=ada, name_or_email="bob", role="viewer")
    assert set(_statuses(client, survey).values()) == {200}


def test_a_removed_co_researchers_token_loses_the_api_at_once(
    client, bob, ada, shared_with_bob
):
    secret = api_token_create(user=bob, name="bob's script").secret
    url = reverse("analysis:api_survey", kwargs={"pk": shared_with_bob.pk})
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    assert client.get(url, **auth).status_code == 200
    assert client.get(url, **auth).status_code == 200
    membership = shared_with_bob.collaborators.get(user=bob)
    people.collaborator_remove(
        survey=shared_with_bob, user=ada, collaborator_id=membership.pk
    )
    assert client.get(url, **auth).status_code == 404
