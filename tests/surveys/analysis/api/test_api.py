"""The research API: bearer tokens (401), ownership (404), data (200), OpenAPI."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import URLPattern, resolve, reverse

import ldp
from surveys.analysis import urls as analysis_urls
from surveys.api_tokens.models import ApiToken
from surveys.api_tokens.services import api_token_create, token_hash
from tests.surveys.analysis.dashboard_support import make_survey
from tests.surveys.stored_reports import payloads

pytestmark = pytest.mark.django_db


ANSWERED_RESPONDENTS = 120  # the module's kept survey (conftest.py)


@pytest.fixture
def secret(ada):
    return api_token_create(user=ada, name="analysis script").secret


def _auth(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def test_list_requires_a_token(client):
    response = client.get(reverse("analysis:api_surveys"))
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="deniable"'
    assert "error" in response.json()


@pytest.mark.parametrize(
    "header", ["Bearer nope", "Bearer ", "Basic YWRhOnB3", "bearer dnb_wrong"]
)
def test_invalid_tokens_are_refused(client, answered, header):
    url = reverse("analysis:api_survey", args=[answered.pk])
    assert client.get(url, HTTP_AUTHORIZATION=header).status_code == 401


def test_revoked_token_is_refused(client, ada, answered):
    created = api_token_create(user=ada, name="old")
    ApiToken.objects.filter(pk=created.token.pk).update(revoked_at="2026-01-01T00:00Z")
    response = client.get(reverse("analysis:api_surveys"), **_auth(created.secret))
    assert response.status_code == 401


def test_lists_only_my_surveys(client, bob, answered, secret):
    make_survey(bob, title="Bob's")
    response = client.get(reverse("analysis:api_surveys"), **_auth(secret))
    assert response.status_code == 200
    assert [s["id"] for s in response.json()["surveys"]] == [answered.pk]
    assert "no-store" in response["Cache-Control"]


def test_someone_elses_survey_is_404(client, bob, secret):
    bobs = make_survey(bob, title="Bob's")
    for name in ("api_survey", "api_reports"):
        response = client.get(
            reverse(f"analysis:{name}", args=[bobs.pk]), **_auth(secret)
        )
        assert response.status_code == 404
        assert "error" in response.json()


def test_estimates_match_ldp_on_the_stored_reports(client, answered, secret):
    response = client.get(
        reverse("analysis:api_survey", args=[answered.pk]), **_auth(secret)
    )
    assert response.status_code == 200
    by_id = {q["question_id"]: q for q in response.json()["questions"]}
    question = answered.questions.get(spec__mechanism="grr")
    mechanism = ldp.build(question.spec)
    reports = payloads(question.reports.all())
    expected = mechanism.estimate(mechanism.aggregate(reports))
    assert by_id[question.pk]["estimate"] == pytest.approx(list(expected.estimate))
    assert by_id[question.pk]["n"] == 120


def test_reports_are_paginated_by_id_until_exhausted(client, answered, secret):
    url = reverse("analysis:api_reports", args=[answered.pk]) + "?limit=100"
    seen, pages, questions = [], 0, None
    while url:
        response = client.get(url, **_auth(secret))
        assert response.status_code == 200
        data = response.json()
        if pages == 0:
            questions = data["questions"]
        seen += [r["report_id"] for r in data["reports"]]
        url = data["next"]
        pages += 1
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == 120 * 7
    assert pages == 9
    assert {q["question_id"] for q in questions if q["is_private"]} == set(
        answered.questions.filter(is_private=True).values_list("pk", flat=True)
    )


@pytest.mark.parametrize("query", ["?limit=0", "?limit=x", "?after=-1"])
def test_bad_paging_parameters_are_400(client, answered, secret, query):
    url = reverse("analysis:api_reports", args=[answered.pk]) + query
    assert client.get(url, **_auth(secret)).status_code == 400


def test_tokens_are_stored_hashed(ada):
    created = api_token_create(user=ada, name="x")
    stored = ApiToken.objects.get(pk=created.token.pk)
    assert stored.token_hash == token_hash(created.secret)
    assert created.secret not in {stored.token_hash, stored.prefix, stored.name}


def test_management_command_prints_a_working_token(client, ada, answered):
    out = StringIO()
    call_command("create_api_token", "ada", "--name", "cli", stdout=out)
    secret = out.getvalue().strip()
    response = client.get(reverse("analysis:api_surveys"), **_auth(secret))
    assert response.status_code == 200


def test_token_page_creates_and_revokes(client, ada):
    client.force_login(ada)
    response = client.post(
        reverse("analysis:api_tokens"), {"name": "notebook", "days": "90"}, follow=True
    )
    assert response.status_code == 200
    secret = response.context["created"]["secret"]
    assert secret in response.content.decode()
    token = ApiToken.objects.get(user=ada)
    client.post(reverse("analysis:api_token_revoke", args=[token.pk]))
    assert (
        client.get(reverse("analysis:api_surveys"), **_auth(secret)).status_code == 401
    )


def test_openapi_document_describes_every_api_path(client):
    response = client.get(reverse("analysis:api_openapi"))
    assert response.status_code == 200
    document = json.loads(response.content)
    assert document["openapi"].startswith("3.1")
    paths = document["paths"]
    for pattern in analysis_urls.api_patterns:
        assert isinstance(pattern, URLPattern)
        url = reverse(
            f"analysis:{pattern.name}",
            kwargs={name: 1 for name in pattern.pattern.converters} or None,
        )
        matching = [p for p in paths if p.replace("{pk}", "1") == url]
        assert matching, f"{url} is not in the OpenAPI document"
    for path, operations in paths.items():
        assert resolve(path.replace("{pk}", "1")).namespace == "analysis"
        for operation in operations.values():
            assert operation["responses"], path
            for code, described in operation["responses"].items():
                assert described["description"], (path, code)
            if operation.get("security"):
                assert "401" in operation["responses"]
            if "{pk}" in path:
                assert "404" in operation["responses"]


def test_openapi_schema_references_resolve(client):
    document = client.get(reverse("analysis:api_openapi")).json()
    text = json.dumps(document)
    schemas = document["components"]["schemas"]
    for ref in set(re.findall(r'"#/components/schemas/(\w+)"', text)):
        assert ref in schemas
