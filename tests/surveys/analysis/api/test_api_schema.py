"""Schemathesis against the research API's own OpenAPI document.

Every operation of ``/results/api/v1/openapi.json`` is exercised in-process
(WSGI, the suite's PostgreSQL) with generated requests, valid ones and (where
there are parameters) invalid ones that must be refused: a fixed number of
examples, derandomized.  Responses must never be a 5xx and must conform to the
document (status codes, content types, headers, bodies).  Each generated case
is drawn with a random survey id (almost never one of the owner's, so 404s are
checked) or with the id of the owner's survey that has responses (so whole
estimate and report pages are checked against the schemas).
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from surveys.api_tokens.services import api_token_create
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db

EXAMPLES = 40


@pytest.fixture
def wsgi_app():
    """The project's WSGI application, keeping the test's database connection.

    Django closes old connections when each request ends, which would end the
    test's transaction; its own test client switches that off the same way.
    """
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield get_wsgi_application()
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def api(ada, wsgi_app):
    survey = make_survey(ada, title="Schema")
    simulate(survey, 40)
    token = api_token_create(user=ada, name="schemathesis")
    schema = schemathesis.openapi.from_wsgi(reverse("analysis:api_openapi"), wsgi_app)
    return schema, survey, {"Authorization": f"Bearer {token.secret}"}


def operations(schema):
    for result in schema.get_all_operations():
        yield result.ok()


def test_the_document_describes_every_api_operation(api):
    schema, _, _ = api
    found = {(op.method.upper(), op.path) for op in operations(schema)}
    # Schemathesis leaves out the document's own path (it loaded it from there).
    assert found == {
        ("GET", "/results/api/v1/surveys"),
        ("GET", "/results/api/v1/surveys/{pk}"),
        ("GET", "/results/api/v1/surveys/{pk}/reports"),
    }


@pytest.mark.sweeps
@pytest.mark.parametrize(
    "path",
    [
        "/results/api/v1/surveys",
        "/results/api/v1/surveys/{pk}",
        "/results/api/v1/surveys/{pk}/reports",
    ],
)
def test_generated_requests_conform_and_never_fail(api, path):
    schema, survey, auth = api
    (operation,) = [op for op in operations(schema) if op.path == path]

    has_pk = bool(operation.path_parameters)
    strategies = [operation.as_strategy(GenerationMode.POSITIVE, headers=auth)]
    if has_pk:
        real = {"pk": survey.pk}
        strategies += [
            operation.as_strategy(
                GenerationMode.POSITIVE, headers=auth, path_parameters=real
            ),
            # Invalid ids, and invalid query parameters of a real survey.
            operation.as_strategy(GenerationMode.NEGATIVE, headers=auth),
        ]
        if operation.query:
            strategies.append(
                operation.as_strategy(
                    GenerationMode.NEGATIVE, headers=auth, path_parameters=real
                )
            )

    @hypothesis_settings(
        max_examples=EXAMPLES * len(strategies),
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=st.one_of(strategies))
    def check(case):
        case.call_and_validate()

    check()


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("analysis:api_surveys", "?limit=5"),
        ("analysis:api_survey", "?format=csv"),
        ("analysis:api_reports", "?limt=5"),
    ],
)
def test_an_unknown_query_parameter_is_named_in_a_400(client, api, name, query):
    _, survey, auth = api
    kwargs = {} if name == "analysis:api_surveys" else {"pk": survey.pk}
    url = reverse(name, kwargs=kwargs) + query
    response = client.get(url, HTTP_AUTHORIZATION=auth["Authorization"])
    assert response.status_code == 400
    assert "Unknown query parameters" in response.json()["error"]


@pytest.mark.parametrize("query", ["?after=", "?limit=", "?after=1e3"])
def test_an_empty_or_non_integer_paging_parameter_is_a_400(client, api, query):
    _, survey, auth = api
    url = reverse("analysis:api_reports", kwargs={"pk": survey.pk}) + query
    response = client.get(url, HTTP_AUTHORIZATION=auth["Authorization"])
    assert response.status_code == 400


def test_an_unknown_path_under_the_api_is_a_json_404(client, api):
    response = client.get("/results/api/v1/surveys/not-a-number")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "openapi.json" in response.json()["error"]
