"""The estimates document is strict JSON at every n.

Python's ``json`` writes ``Infinity`` and ``NaN`` for non-finite floats, which
no strict parser (JavaScript's ``JSON.parse``, R's jsonlite, PostgreSQL's
jsonb) accepts.  A margin or a standard error can be undefined when a question
has no or one response, so the export and the API are parsed here with a
parser that refuses those tokens.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from surveys.analysis.tallies.services import tallies_refresh
from surveys.api_tokens.services import api_token_create
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db


def _strict(text: str):
    def refuse(token: str):
        raise AssertionError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(params=[0, 1, 2], ids=lambda n: f"n={n}")
def survey(request, ada):
    survey = make_survey(ada)
    if request.param:
        simulate(survey, request.param)
    tallies_refresh(survey_id=survey.pk)
    return survey


def test_the_estimates_json_export_parses_strictly_with_few_responses(
    ada_client, survey
):
    url = reverse("analysis:export_estimates_json", args=[survey.pk])
    response = ada_client.get(url)
    assert response.status_code == 200
    document = _strict(response.content.decode())
    assert len(document["questions"]) > 0


def test_the_api_survey_resource_parses_strictly_with_few_responses(
    client, ada, survey
):
    secret = api_token_create(user=ada, name="strict").secret
    url = reverse("analysis:api_survey", args=[survey.pk])
    response = client.get(url, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    document = _strict(response.content.decode())
    assert all(isinstance(q["margin_of_error"], float) for q in document["questions"])
