"""Reading results: the fragment is rendered once per snapshot (freshness per
request), and the exports and API serialise estimates as the snapshot stores them."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils.translation import get_language

from surveys.analysis.models import ResultSnapshot
from surveys.analysis.pages import freshness, views
from surveys.analysis.results.objects import _decode
from surveys.analysis.wording import english
from surveys.api_tokens.services import api_token_create
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(ada):
    survey = make_survey(ada)
    simulate(survey, 100)
    return survey


def _ns(html: str) -> set[str]:
    return set(re.findall(r'data-field="n">(\d+)<', html))


def _key(survey) -> str:
    snapshot = ResultSnapshot.objects.get(survey=survey)
    return (
        f"analysis:results-body:{survey.pk}:{snapshot.version}:"
        f"{snapshot.computed_at.timestamp()}:{freshness.batch_size()}:"
        f"{views.RESULTS_REVISION}:{get_language()}"
    )


def test_the_fragment_of_a_snapshot_is_cached_and_served_again(ada_client, answered):
    url = reverse("analysis:dashboard", args=[answered.pk])
    first = ada_client.get(url).content.decode()
    cached = cache.get(_key(answered))
    assert cached is not None and cached in first
    second = ada_client.get(url).content.decode()
    assert cached in second and _ns(second) == {"100"}


def test_a_new_snapshot_is_rendered_afresh_not_served_from_the_cache(
    ada_client, answered
):
    url = reverse("analysis:dashboard", args=[answered.pk])
    assert _ns(ada_client.get(url).content.decode()) == {"100"}
    simulate(answered, 20, seed=8)
    assert _ns(ada_client.get(url).content.decode()) == {"120"}


def test_the_freshness_line_counts_newer_responses_under_a_cached_fragment(
    ada_client, answered, settings
):
    live = reverse("analysis:dashboard_live", args=[answered.pk])
    ada_client.get(live)
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    simulate(answered, 3, seed=9)  # held back by batching
    data = ada_client.get(live).json()
    assert data["pending_responses"] == 3
    assert "3 responses held back until 7 more arrive" in data["freshness"]
    assert "3 responses held back until 7 more arrive" in data["html"]
    assert _ns(data["html"]) == {"100"}


def test_the_fragment_depends_on_nothing_but_the_snapshot(ada_client, answered):
    url = reverse("analysis:dashboard", args=[answered.pk])
    ada_client.get(url)
    cached = cache.get(_key(answered))
    assert "csrf" not in cached.lower() and "ago" not in cached


def test_a_cache_outage_still_renders_the_results(ada_client, answered, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens on port 9
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    url = reverse("analysis:dashboard", args=[answered.pk])
    response = ada_client.get(url)
    assert response.status_code == 200
    assert _ns(response.content.decode()) == {"100"}


def test_exports_and_the_api_serialise_estimates_as_the_snapshot_stores_them(
    ada_client, answered, ada
):
    url = reverse("analysis:export_estimates_json", args=[answered.pk])
    exported = ada_client.get(url).json()["questions"]
    stored = _decode(ResultSnapshot.objects.get(survey=answered).document)
    secret = api_token_create(user=ada, name="one source").secret
    api_url = reverse("analysis:api_survey", kwargs={"pk": answered.pk})
    served = ada_client.get(api_url, HTTP_AUTHORIZATION=f"Bearer {secret}").json()
    # The exports add what each question's per-answer figures are, and its
    # answered / not shown / left blank / declined counts.
    assert all(
        set(q["item_counts"]) >= {"answered", "not_shown", "left_blank", "declined"}
        for q in exported
    )
    assert {q["estimate_kind"] for q in exported} <= {
        "share",
        "raw per-level inversion (unbiased; can be negative; not a distribution)",
    }
    assert [without_kind(q) for q in exported] == [
        as_exported(q) for q in stored["questions"]
    ]
    assert exported == served["questions"]
    assert len(exported) == answered.questions.filter(is_private=True).count()


def without_kind(question: dict) -> dict:
    return {
        k: v for k, v in question.items() if k not in {"estimate_kind", "item_counts"}
    }


def as_exported(question: dict) -> dict:
    """A stored question as exports carry it: warnings worded in English, and
    no design (``mechanism_label`` names it)."""
    return {
        **{k: v for k, v in question.items() if k != "design"},
        "warnings": [english(w) for w in question["warnings"]],
    }
