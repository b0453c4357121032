"""The dashboard rendered once and reused: each reader's name, CSRF token and
the current results are filled in per read, and any change to what the page
shows renders it again (real PostgreSQL and Redis as the shared cache)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from surveys.analysis import dashboard_page
from surveys.api_tokens.services import api_token_create
from surveys.authoring import people
from surveys.authoring import services as authoring
from tests.conftest import redis_cache
from tests.surveys.analysis.dashboard_support import make_survey, simulate

# Cache generations are bumped when transactions commit: real commits.
pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(autouse=True)
def shared(settings, redis_url):
    settings.CACHES = redis_cache(redis_url, prefix="dashboard-page")
    dashboard_page.cache_clear()
    yield settings
    dashboard_page.cache_clear()


@pytest.fixture
def survey(ada, bob):
    survey = make_survey(ada)
    simulate(survey, 40)
    people.collaborator_add(survey=survey, user=ada, name_or_email="bob", role="viewer")
    return survey


def _dashboard(client, survey) -> str:
    response = client.get(reverse("analysis:dashboard", args=[survey.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _ns(html: str) -> set[str]:
    return set(re.findall(r'data-field="n">(\d+)<', html))


def test_a_second_reader_gets_the_kept_page_with_their_own_name(
    client, ada, bob, survey
):
    client.force_login(ada)
    assert "Signed in as ada" in _dashboard(client, survey)
    client.force_login(bob)
    page = _dashboard(client, survey)
    assert dashboard_page.cache_info() == {"hits": 1, "renders": 1, "size": 1}
    assert "Signed in as bob" in page and "Signed in as ada" not in page


def test_the_kept_pages_csrf_tokens_are_the_readers_own(client, ada, bob, survey):
    client.force_login(ada)
    _dashboard(client, survey)
    client.force_login(bob)
    client.handler.enforce_csrf_checks = True
    page = _dashboard(client, survey)
    tokens = set(TOKEN.findall(page))
    assert len(tokens) == 1  # the sign-out form and every export form
    posted = client.post(
        reverse("analysis:export_job_request", args=[survey.pk]),
        {"export": "reports_csv", "csrfmiddlewaretoken": tokens.pop()},
    )
    assert posted.status_code == 302


def test_the_kept_page_equals_the_page_rendered_for_the_reader_alone(
    client, ada, survey
):
    client.force_login(ada)
    token = api_token_create(user=ada, name="script").token
    client.post(reverse("analysis:api_token_revoke", args=[token.pk]))
    alone = _dashboard(client, survey)  # a message is pending: rendered alone
    assert "was revoked" in alone and dashboard_page.cache_info()["size"] == 0
    kept = _dashboard(client, survey)
    kept = _dashboard(client, survey)
    assert dashboard_page.cache_info()["hits"] == 1

    def without_message_and_tokens(html: str) -> str:
        html = re.sub(
            r'\s*<div role="status">\s*<ul class="messages".*?</ul>\s*</div>',
            "",
            html,
            flags=re.S,
        )
        return TOKEN.sub('name="csrfmiddlewaretoken" value=""', html)

    assert without_message_and_tokens(alone) == without_message_and_tokens(kept)


def test_a_new_snapshot_shows_under_the_kept_page_at_once(client, ada, survey):
    client.force_login(ada)
    assert _ns(_dashboard(client, survey)) == {"40"}
    simulate(survey, 20, seed=9)
    assert _ns(_dashboard(client, survey)) == {"60"}
    assert dashboard_page.cache_info()["renders"] == 1  # the page was reused


def test_a_retitled_survey_renders_the_page_again(client, ada, survey):
    client.force_login(ada)
    _dashboard(client, survey)
    survey.title = "Campus life"
    survey.save(update_fields=["title"])
    assert "Results: Campus life" in _dashboard(client, survey)
    assert dashboard_page.cache_info()["renders"] == 2


def test_an_export_requested_renders_the_page_again_with_its_progress(
    client, ada, survey
):
    client.force_login(ada)
    before = _dashboard(client, survey)
    assert "data-job-url" not in before and "Download the" not in before
    client.post(
        reverse("analysis:export_job_request", args=[survey.pk]),
        {"export": "reports_csv"},
    )
    after = _dashboard(client, survey)  # queued, or already written (no broker)
    assert "data-job-url" in after or "Download the" in after
    assert dashboard_page.cache_info()["renders"] == 2


def test_a_closed_survey_renders_the_page_again_with_its_state(client, ada, survey):
    client.force_login(ada)
    assert 'data-state="open"' in _dashboard(client, survey)
    authoring.survey_close(survey=survey, user=ada)
    assert 'data-state="closed"' in _dashboard(client, survey)


def test_each_language_has_its_own_kept_page(client, ada, survey):
    client.force_login(ada)
    response = client.get(reverse("analysis:dashboard", args=[survey.pk]))
    context = {
        "survey": survey,
        "availability": response.context["availability"],
        "exports": response.context["exports"],
        "export_retention_hours": 24,
        "poll_seconds": 15,
    }
    keys = set()
    for language in ("en", "fr", "de"):
        with translation.override(language):
            keys.add(dashboard_page.page_key(context))
    assert len(keys) == 3
