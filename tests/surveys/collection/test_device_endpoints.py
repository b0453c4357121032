"""The independent device's endpoints: content objects and reports, readable
and postable across origins from DEVICE_ORIGINS only, with no cookie."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.test import Client
from django.urls import reverse

from surveys.collection import content, services
from surveys.collection.models import Submission
from tests.surveys.collection.conftest import body

pytestmark = pytest.mark.django_db

DEVICE = "https://device.example.org"
STRANGER = "https://evil.example.net"


@pytest.fixture(autouse=True)
def _device_origin(settings):
    settings.DEVICE_ORIGINS = [DEVICE]
    settings.CORS_ALLOWED_ORIGINS = [DEVICE]


@pytest.fixture
def browser() -> Client:
    """A browser that sends no cookie and no CSRF token (third-party cookies
    blocked)."""
    return Client(enforce_csrf_checks=True)


def _content_url(survey) -> str:
    return reverse("collection:device_content", args=[survey.public_token])


def _report_url(survey) -> str:
    return reverse("collection:device_report", args=[survey.public_token])


@pytest.mark.parametrize(
    ("origin", "allowed"), [(DEVICE, True), (STRANGER, False), ("null", False)]
)
def test_only_a_device_origin_may_read_the_content(browser, survey, origin, allowed):
    response = browser.get(_content_url(survey), HTTP_ORIGIN=origin)
    assert response.status_code == 200
    assert (response.get("Access-Control-Allow-Origin") == origin) is allowed
    assert "Access-Control-Allow-Credentials" not in response


@pytest.mark.parametrize(("origin", "allowed"), [(DEVICE, True), (STRANGER, False)])
def test_only_a_device_origin_passes_the_reports_preflight(
    browser, survey, origin, allowed
):
    response = browser.options(
        _report_url(survey),
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="content-type",
    )
    assert (response.get("Access-Control-Allow-Origin") == origin) is allowed


def test_the_answer_pages_give_no_device_origin_cross_origin_access(browser, survey):
    page = browser.get(
        reverse("collection:respond", args=[survey.public_token]), HTTP_ORIGIN=DEVICE
    )
    assert "Access-Control-Allow-Origin" not in page


def test_the_content_is_every_question_with_its_hash_and_no_cookie(browser, survey):
    response = browser.get(_content_url(survey), HTTP_ORIGIN=DEVICE)
    data = response.json()
    assert not response.cookies
    expected = content.survey_content(survey, "en")
    assert [q["hash"] for q in data["questions"]] == [o.hash for o in expected]
    for item in data["questions"]:
        digest = hashlib.sha256(item["text"].encode("utf-8")).hexdigest()
        assert digest == item["hash"]
    assert data["fields"]["survey_revision"] == survey.revision
    assert data["report_url"].endswith(_report_url(survey))


def test_the_content_is_in_the_asked_language(browser, survey):
    from tests.surveys.collection.conftest import offered_in

    offered_in(survey, "es")
    data = browser.get(_content_url(survey), {"language": "es"}).json()
    texts = [json.loads(q["text"])["text"] for q in data["questions"]]
    assert data["language"] == "es"
    assert all(text.startswith("[es] ") for text in texts)


def test_a_report_is_stored_from_the_device_with_no_cookie_or_token(browser, survey):
    response = browser.post(_report_url(survey), body(survey), HTTP_ORIGIN=DEVICE)
    assert response.status_code == 201, response.content
    assert response["Access-Control-Allow-Origin"] == DEVICE
    assert not response.cookies
    assert Submission.objects.filter(survey=survey).count() == 1


@pytest.mark.parametrize(
    "spoil",
    [
        "true_answer",
        "unknown_field",
        "no_key",
    ],
)
def test_a_report_the_answer_form_refuses_is_refused_here_and_stores_nothing(
    browser, survey, spoil
):
    data = body(survey)
    protected = survey.questions.filter(is_private=True).first()
    if spoil == "true_answer":
        data[f"q{protected.pk}_answer"] = "1"
    elif spoil == "unknown_field":
        data["device_id"] = "abc"
    else:
        del data["idempotency_key"]
    response = browser.post(_report_url(survey), data, HTTP_ORIGIN=DEVICE)
    assert response.status_code == 400
    assert response.json()["error"]
    assert not Submission.objects.filter(survey=survey).exists()


def test_an_invitation_is_answered_once_through_the_device(browser, survey):
    (token,) = services.invitations_create(survey=survey, count=1)
    read = browser.get(reverse("collection:device_content_invitation", args=[token]))
    assert read.status_code == 200
    report = reverse("collection:device_report_invitation", args=[token])
    assert read.json()["report_url"].endswith(report)
    assert browser.post(report, body(survey)).status_code == 201
    again = browser.get(reverse("collection:device_content_invitation", args=[token]))
    assert again.status_code == 410
    assert again.json()["code"] == "used"


def test_a_closed_survey_gives_no_content(browser, survey, researcher):
    from surveys.authoring import services as authoring

    authoring.survey_close(survey=survey, user=researcher)
    response = browser.get(_content_url(survey))
    assert response.status_code == 410
    assert response.json()["code"] == "closed"
