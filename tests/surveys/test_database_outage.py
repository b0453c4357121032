"""A database outage answers a clear 503 with Retry-After.

These tests drive the middleware through Django's real request handling on
the suite's database (the restart of a real PostgreSQL under gunicorn is
``tests/system/servers/test_database_restart.py``): the failure comes from the
database layer itself (``connection.execute_wrapper`` refuses every query, as a server
that went away does), never from a stand-in for the middleware.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NoReturn

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import OperationalError, connection
from django.http import HttpRequest, JsonResponse
from django.test import Client
from django.urls import path, reverse

from surveys.api_tokens.services import TOKEN_PREFIX
from surveys.collection import demo
from surveys.collection.models import Submission
from tests.conftest import project_settings
from tests.surveys.collection.conftest import JSON, body

RETRY_AFTER = 7
MESSAGE = "cannot reach its database right now, so nothing was stored"


# --- the middleware inside Django's request handling -------------------------------
def refuse(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict
) -> NoReturn:
    """An execute wrapper: every query fails as when the server went away."""
    raise OperationalError(
        'connection to server at "127.0.0.1", port 5432 failed: Connection refused'
    )


def save_session(request: HttpRequest) -> JsonResponse:
    """A view whose session is saved by SessionMiddleware after it returns."""
    request.session["seen"] = True
    return JsonResponse({"ok": True})


def broken(request: HttpRequest) -> JsonResponse:
    """A view with a bug that has nothing to do with the database."""
    raise ZeroDivisionError("a bug")


urlpatterns = [path("session-write", save_session), path("broken", broken)]


@pytest.fixture
def survey(django_user_model):
    """The demo survey (one question of every kind), published."""
    owner = django_user_model.objects.create_user("ida", password="correct horse 42")
    created, _ = demo.demo_survey(owner=owner)
    return created


@pytest.mark.django_db
def test_database_error_in_a_view_answers_503_page_with_retry_after(
    client, survey, settings, caplog
):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    respond = reverse("collection:respond", args=[survey.public_token])
    data = body(survey)
    with caplog.at_level(logging.WARNING), connection.execute_wrapper(refuse):
        page = client.post(respond, data)
        script = client.post(respond, data, **JSON)
    assert page.status_code == script.status_code == 503
    assert page["Retry-After"] == script["Retry-After"] == str(RETRY_AFTER)
    assert "no-store" in page["Cache-Control"]
    assert MESSAGE in page.content.decode()
    assert script.json()["code"] == "database_unavailable"
    warnings = [r for r in caplog.records if r.name == "surveys.middleware"]
    assert [r.levelname for r in warnings] == ["WARNING", "WARNING"]
    logged = " ".join(r.getMessage() for r in warnings)
    assert "POST collection:respond" in logged and "OperationalError" in logged
    assert data["idempotency_key"] not in logged
    assert not any(value in logged for value in data.values() if len(value) > 3)
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_api_paths_answer_json_503_without_an_accept_header(client, settings):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    with connection.execute_wrapper(refuse):
        response = client.get(
            reverse("analysis:api_surveys"),
            HTTP_AUTHORIZATION=f"Bearer {TOKEN_PREFIX}not-a-real-token",
        )
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json()["retry_after"] == RETRY_AFTER


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_database_error_in_session_middleware_answers_503_not_500(settings, caplog):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    # The view succeeds; SessionMiddleware then saves the session and fails.
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING), connection.execute_wrapper(refuse):
        response = client.get("/session-write", HTTP_ACCEPT="application/json")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER)
    assert response.json()["code"] == "database_unavailable"
    assert any(r.name == "surveys.middleware" for r in caplog.records)


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_errors_other_than_database_failures_stay_500():
    client = Client(raise_request_exception=False)
    response = client.get("/broken")
    assert response.status_code == 500
    assert not response.has_header("Retry-After")


@pytest.mark.django_db
def test_healthz_answers_503_with_the_same_retry_after(client, settings):
    settings.DB_UNAVAILABLE_RETRY_AFTER = RETRY_AFTER
    with connection.execute_wrapper(refuse):
        response = client.get(reverse("healthz"))
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER)
    assert response.json() == {"database": "unavailable", "retry_after": RETRY_AFTER}


def test_retry_after_below_one_second_is_refused_at_startup():
    with pytest.raises(
        ImproperlyConfigured, match="DB_UNAVAILABLE_RETRY_AFTER must be 1 or more"
    ):
        project_settings(DB_UNAVAILABLE_RETRY_AFTER="0")
