"""Every public POST refuses what it did not ask for, and bad tokens get a 4xx.

The respondent's endpoints (the answer POST as a page and as JSON, by public
link and by invitation, the owner's test mode and preview, withdrawal and its
lookup, unsubscribing, the language picker) each accept exactly the fields
their form declares: anything else (a stray field, a protected question's
true answer, a file, a field sent twice) is answered with a 4xx and nothing is
stored or changed.  Control characters in a token or a field get a 4xx, never
a 500.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from surveys.authoring.models import Survey
from surveys.collection import services
from surveys.collection.models import PlainAnswer, Recipient, Report, Submission
from surveys.invitations import recipient_list
from tests.surveys.collection.conftest import JSON, body

pytestmark = pytest.mark.django_db

SECRET = "Wombat4711"  # a value posted where it was not asked for


@dataclass
class Endpoint:
    """One respondent POST: where, a body it accepts, and what it changes."""

    url: str
    data: dict[str, Any]
    headers: dict[str, str]
    changes: bool = True  # the preview stores nothing, whatever is sent


def state() -> tuple:
    """Everything a respondent's POST can change."""
    return (
        Submission.objects.count(),
        Report.objects.count(),
        PlainAnswer.objects.count(),
        sorted(Recipient.objects.values_list("state", flat=True)),
    )


def _receipt(client: Client, survey: Survey) -> str:
    url = reverse("collection:respond", args=[survey.public_token])
    response = client.post(url, body(survey), **JSON)
    return response.json()["receipt_url"].split("/")[-2]


def endpoint(name: str, client: Client, survey: Survey) -> Endpoint:
    """The endpoint ``name`` of ``survey``, ready to post to with ``client``."""
    public = reverse("collection:respond", args=[survey.public_token])
    if name in ("public page", "public JSON"):
        return Endpoint(public, body(survey), JSON if name == "public JSON" else {})
    if name == "invitation":
        (token,) = services.invitations_create(survey=survey, count=1)
        url = reverse("collection:respond_invitation", args=[token])
        return Endpoint(url, body(survey), JSON)
    if name in ("test mode", "preview"):
        client.force_login(survey.owner)
        url = reverse(f"collection:{name.replace(' ', '_')}", args=[survey.pk])
        return Endpoint(url, body(survey), JSON, changes=name == "test mode")
    if name == "withdraw":
        url = reverse("collection:withdraw", args=[_receipt(client, survey)])
        return Endpoint(url, {}, {})
    if name == "withdraw lookup":
        code = _receipt(client, survey)
        url = reverse("collection:withdraw_lookup")
        return Endpoint(url, {"code": code}, {}, changes=False)
    if name == "unsubscribe":
        recipient_list.recipients_add(survey=survey, emails=["ana@example.org"])
        token = recipient_list.unsubscribe_token(Recipient.objects.get())
        url = reverse("collection:unsubscribe", args=[token])
        return Endpoint(url, {"List-Unsubscribe": "One-Click"}, {})
    assert name == "language picker"
    return Endpoint(reverse("set_language"), {"language": "fr"}, {}, changes=False)


ENDPOINTS = [
    "public page",
    "public JSON",
    "invitation",
    "test mode",
    "preview",
    "withdraw",
    "withdraw lookup",
    "unsubscribe",
    "language picker",
]


def _stray(data: dict[str, Any], survey: Survey) -> dict[str, Any]:
    return data | {"note": SECRET}


def _true_answer(data: dict[str, Any], survey: Survey) -> dict[str, Any]:
    protected = survey.questions.filter(is_private=True).first()
    return data | {f"q{protected.pk}_answer": SECRET}


def _file(data: dict[str, Any], survey: Survey) -> dict[str, Any]:
    return data | {"upload": SimpleUploadedFile("answers.txt", SECRET.encode())}


def _twice(data: dict[str, Any], survey: Survey) -> dict[str, Any]:
    return data | {"csrfmiddlewaretoken": ["x", SECRET]}


EXTRAS: dict[str, Callable[[dict[str, Any], Survey], dict[str, Any]]] = {
    "a stray field": _stray,
    "a protected question's true answer": _true_answer,
    "a file": _file,
    "a field sent twice": _twice,
}


@pytest.mark.sweeps
@pytest.mark.parametrize("extra", list(EXTRAS))
@pytest.mark.parametrize("name", ENDPOINTS)
def test_every_respondent_post_refuses_what_it_did_not_ask_for(
    client, survey, name, extra
):
    target = endpoint(name, client, survey)
    before = state()
    response = client.post(
        target.url, EXTRAS[extra](target.data, survey), **target.headers
    )
    assert 400 <= response.status_code < 500, response.content[:300]
    assert state() == before
    assert "django_language" not in response.cookies
    assert SECRET not in response.content.decode()  # no value is echoed


@pytest.mark.parametrize("name", ENDPOINTS)
def test_every_respondent_post_takes_exactly_the_fields_it_asks_for(
    client, survey, name
):
    target = endpoint(name, client, survey)
    before = state()
    response = client.post(target.url, target.data, **target.headers)
    if target.changes:
        assert response.status_code in (200, 201, 303), response.content[:300]
        assert state() != before
    else:  # the preview refuses all; the lookup and the picker only redirect
        assert response.status_code in (302, 409)
        assert state() == before


def test_the_refusal_names_the_fields_and_says_nothing_was_stored(client, survey):
    target = endpoint("public JSON", client, survey)
    data = target.data | {"note": "x", "tr" * 30: "y"}
    error = client.post(target.url, data, **target.headers).json()["error"]
    assert error.startswith("Nothing was stored: the page sent “note”, “trtrtr")
    assert "…”" in error and "which this form does not ask for" in error


def test_every_field_the_survey_did_not_ask_for_is_refused_question_by_question(
    client, survey
):
    """A protected question's answer under any name, a skip marker for a
    question that is not optional, a field of a question the survey lacks."""
    url = reverse("collection:respond", args=[survey.public_token])
    names = []
    for question in survey.questions.all():
        prefix = f"q{question.pk}"
        if question.is_private:
            names += [prefix, f"{prefix}_answer"]
        else:
            names += [f"{prefix}_report", f"{prefix}_spec_revision"]
        if not question.optional:
            names.append(f"{prefix}_skipped")
    names += ["q0_report", "q0", "link_PROLIFIC_PID", "opened_at", "idempotency"]
    for name in names:
        response = client.post(url, body(survey) | {name: "1"}, **JSON)
        assert response.status_code == 400, name
        assert "nothing was stored" in response.json()["error"].lower(), name
    assert not Submission.objects.exists()


# --- control characters -----------------------------------------------------------
CONTROLS = ["\x00", "\x01", "\x1f", "\x7f", "\x85"]
TOKEN_PATHS = [
    "/s/{token}/",
    "/s/{token}/answer/",
    "/s/i/{token}/",
    "/s/i/{token}/answer/",
    "/s/receipt/{token}/",
    "/s/receipt/{token}/withdraw/",
    "/s/unsubscribe/{token}/",
]


@pytest.mark.sweeps
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("path", TOKEN_PATHS)
def test_a_control_character_in_any_token_is_a_4xx(client, survey, path, method):
    client.raise_request_exception = False
    (invitation,) = services.invitations_create(survey=survey, count=1)
    for control in CONTROLS:
        for token in (
            control,
            f"{survey.public_token}{control}",
            f"{invitation}{control}",
        ):
            response = getattr(client, method)(path.format(token=token))
            assert 400 <= response.status_code < 500, (path, repr(token))
    assert not Submission.objects.exists()


@pytest.mark.sweeps  # every field of every endpoint
@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_control_character_in_any_posted_field_is_a_4xx(client, survey, name):
    client.raise_request_exception = False
    target = endpoint(name, client, survey)
    before = state()
    for field in target.data:
        for control in ("\x00", "\x1f"):
            data = target.data | {field: f"{target.data[field]}{control}"}
            response = client.post(target.url, data, **target.headers)
            assert 400 <= response.status_code < 500, (field, repr(control))
    assert state() == before


def test_a_control_character_in_a_link_field_of_the_query_string_is_a_4xx(
    client, survey
):
    Survey.objects.filter(pk=survey.pk).update(
        link_fields=["PROLIFIC_PID"], link_fields_acknowledged=True
    )
    for view in ("collection:consent", "collection:respond"):
        url = reverse(view, args=[survey.public_token])
        response = client.get(url, {"PROLIFIC_PID": "abc\x00"})
        assert response.status_code == 400
