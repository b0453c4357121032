"""The answer page rendered once per survey content and reused
(``respond_page``), and the answer POST in a bounded number of statements."""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection
from django.db.models.signals import post_init
from django.middleware.csrf import _unmask_cipher_token
from django.template.loader import render_to_string
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from surveys.authoring import compiled, lifecycle
from surveys.authoring import services as authoring
from surveys.authoring.models import Question, Survey
from surveys.collection import respond_page
from surveys.collection.forms import ResponseForm
from surveys.collection.models import (
    LinkValue,
    PlainAnswer,
    Report,
    SkippedAnswer,
    Submission,
)
from tests.surveys.collection.conftest import JSON, PRIVATE_COUNT, body, offered_in

pytestmark = pytest.mark.django_db

PID_A = "aaaaaaaaaaaaaaaaaaaaaaaa"
PID_B = "bbbbbbbbbbbbbbbbbbbbbbbb"
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
STAMP = re.compile(r'name="opened" value="([^"]*)"')


@pytest.fixture(autouse=True)
def empty_page_cache():
    respond_page.cache_clear()
    yield
    respond_page.cache_clear()


@pytest.fixture
def panel_survey(survey) -> Survey:
    Survey.objects.filter(pk=survey.pk).update(
        link_fields=["PROLIFIC_PID"], link_fields_acknowledged=True
    )
    survey.refresh_from_db()
    return survey


def respond_url(survey: Survey) -> str:
    return reverse("collection:respond", args=[survey.public_token])


def page(client: Client, survey: Survey, **query: str) -> str:
    response = client.get(respond_url(survey), query)
    assert response.status_code == 200
    return response.content.decode()


def token_secret(html: str) -> str:
    """The one CSRF secret of every form on the page (the answer form's and
    the language picker's)."""
    (secret,) = {_unmask_cipher_token(masked) for masked in TOKEN.findall(html)}
    return secret


# --- per-request values are this request's own ------------------------------------
def test_a_reused_page_carries_this_browsers_csrf_token_not_the_first_ones(survey):
    first, second = Client(), Client()
    page_a = page(first, survey)
    page_b = page(second, survey)
    assert respond_page.cache_info()["hits"] == 1
    secret_b = second.cookies["csrftoken"].value
    assert token_secret(page_b) == secret_b
    assert token_secret(page_a) == first.cookies["csrftoken"].value != secret_b


def test_a_reused_page_carries_this_requests_link_values_only(panel_survey):
    page(Client(), panel_survey, PROLIFIC_PID=PID_A)
    page_b = page(Client(), panel_survey, PROLIFIC_PID=PID_B)
    page_none = page(Client(), panel_survey)
    assert respond_page.cache_info()["hits"] == 2
    assert PID_A not in page_b
    assert f'name="link_PROLIFIC_PID" value="{PID_B}"' in page_b
    assert f"<code>{PID_B}</code>" in page_b
    assert PID_A not in page_none and PID_B not in page_none
    assert "data-link-fields" not in page_none


def test_a_reused_page_is_stamped_for_this_request(survey):
    page(Client(), survey)
    (stamp,) = STAMP.findall(page(Client(), survey))
    assert lifecycle.stamp_within_grace(survey, stamp)


def test_a_reused_page_equals_a_page_rendered_for_the_request(panel_survey):
    client = Client()
    page(client, panel_survey)  # rendered and kept
    reused = page(client, panel_survey, PROLIFIC_PID=PID_B)
    respond_page.cache_clear()
    fresh = page(client, panel_survey, PROLIFIC_PID=PID_B)
    assert respond_page.cache_info() == {"hits": 0, "renders": 1, "size": 1}

    def same(html: str) -> str:
        return STAMP.sub("", TOKEN.sub("", html))

    assert same(reused) == same(fresh)


def test_a_survey_without_link_fields_gets_what_their_template_renders(survey):
    assert not survey.link_fields
    rendered = render_to_string(
        respond_page.LINK_FIELDS_TEMPLATE, {"link_inputs": [], "link_values": {}}
    )

    assert respond_page.link_fields_html(survey, {}) == rendered
    assert respond_page.link_fields_html(survey, {}) == rendered  # kept


def test_a_signed_in_researcher_gets_a_page_of_their_own(client, survey, researcher):
    client.force_login(researcher)
    html = page(client, survey)
    assert "Signed in as ada" in html
    assert respond_page.cache_info() == {"hits": 0, "renders": 0, "size": 0}
    assert "Signed in as" not in page(Client(), survey)


# --- rendered again when the survey changes ----------------------------------------
def test_the_page_is_rendered_again_after_a_text_only_question_edit(survey):
    page(Client(), survey)
    question = survey.questions.first()
    Question.objects.filter(pk=question.pk).update(text="A reworded question?")
    html = page(Client(), survey)
    assert "A reworded question?" in html
    assert respond_page.cache_info()["renders"] == 2


def test_the_page_is_rendered_again_for_a_new_survey_revision_alone(survey):
    page(Client(), survey)
    # Nothing else changes (a queryset update leaves updated_at alone).
    Survey.objects.filter(pk=survey.pk).update(revision=survey.revision + 1)
    survey.refresh_from_db()
    html = page(Client(), survey)
    assert f'name="survey_revision" value="{survey.revision}"' in html
    assert respond_page.cache_info()["renders"] == 2


def test_the_page_is_rendered_again_after_a_re_publish(survey, researcher):
    before = page(Client(), survey)
    published = authoring.survey_publish(survey=survey, user=researcher)
    assert published.revision == survey.revision + 1
    after = page(Client(), published)
    assert f'name="survey_revision" value="{survey.revision}"' in before
    assert f'name="survey_revision" value="{published.revision}"' in after
    assert respond_page.cache_info()["renders"] == 2


# --- the POST ----------------------------------------------------------------------
def test_an_answer_post_takes_two_statements_in_one_transaction(
    client, survey, django_assert_num_queries
):
    data = body(survey)
    client.post(respond_url(survey), body(survey), **JSON)  # compiles what it may
    # One transaction: the survey with its questions, read under the lock and
    # compared with the rows the form was checked against, then the
    # submission with its reports and unprotected answers in one statement
    # (plus the transaction's begin and end).
    with django_assert_num_queries(4):
        response = client.post(respond_url(survey), data, **JSON)
    assert response.status_code == 201


def test_an_answer_post_reads_the_survey_only_under_the_lock(client, survey):
    page(client, survey)
    data = body(survey)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(respond_url(survey), data, **JSON)
    assert response.status_code == 201
    reads = [q["sql"] for q in queries if q["sql"].startswith("SELECT")]
    assert len(reads) == 1
    assert reads[0].endswith('FOR UPDATE OF "authoring_survey"')


def test_a_post_after_a_text_edit_is_stored_against_the_survey_as_it_is_now(
    client, survey
):
    page(client, survey)
    Survey.objects.filter(pk=survey.pk).update(title="A retitled survey")
    data = body(survey)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(respond_url(survey), data, **JSON)
    assert response.status_code == 201
    # Under the lock the rows differed: read again, checked again, stored once.
    assert sum("FOR UPDATE" in q["sql"] for q in queries) == 2
    assert Submission.objects.count() == 1
    assert Report.objects.count() == PRIVATE_COUNT


def test_a_post_after_a_re_publish_is_refused_as_stale(client, survey, researcher):
    page(client, survey)
    data = body(survey)  # the revision the page was loaded at
    authoring.survey_publish(survey=survey, user=researcher)
    response = client.post(respond_url(survey), data, **JSON)
    assert response.status_code == 409
    assert response.json()["code"] == "stale"
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"status": Survey.Status.CLOSED}, 410, "closed"),  # closed by hand
        ({"invitation_only": True}, 403, "invitation_only"),  # public link off
        ({"status": Survey.Status.DRAFT}, 404, None),  # made a draft again
    ],
    ids=["closed", "invitation-only", "draft"],
)
def test_a_post_after_the_survey_changed_since_its_page_is_answered_as_it_is_now(
    client, survey, change, status, code
):
    page(client, survey)  # the rows this process keeps: the survey as it was
    Survey.objects.filter(pk=survey.pk).update(**change)
    response = client.post(respond_url(survey), body(survey), **JSON)
    assert response.status_code == status
    if code is not None:
        assert response.json()["code"] == code
    assert not Submission.objects.exists()


def test_posted_forms_of_one_survey_content_share_fields_built_once(survey):
    first = ResponseForm(body(survey), survey=survey)
    second = ResponseForm(body(survey), survey=survey)

    assert first.fields.keys() == second.fields.keys()
    assert all(first.fields[name] is second.fields[name] for name in first.fields)
    assert first.is_valid() and second.is_valid()


def test_a_refused_post_leaves_nothing_behind_for_the_next_one(client, survey):
    private = survey.questions.filter(is_private=True).first()
    refused = client.post(
        respond_url(survey), body(survey, **{f"q{private.pk}_report": "{"}), **JSON
    )
    accepted = client.post(respond_url(survey), body(survey), **JSON)

    assert refused.status_code == 400
    assert "not valid JSON" in refused.json()["error"]
    assert accepted.status_code == 201


def test_a_posted_form_words_its_messages_after_a_text_only_edit(client, survey):
    private = survey.questions.filter(is_private=True).first()
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    Question.objects.filter(pk=private.pk).update(text="A reworded question?")
    survey.refresh_from_db()

    refused = client.post(
        respond_url(survey), body(survey, **{f"q{private.pk}_report": "{"}), **JSON
    )
    assert refused.status_code == 400
    assert "A reworded question?" in refused.json()["error"]


def test_a_duplicate_post_with_the_same_key_stores_nothing_twice(client, panel_survey):
    data = body(panel_survey, key=uuid.uuid4(), link_PROLIFIC_PID=PID_A)
    first = client.post(respond_url(panel_survey), data, **JSON)
    second = client.post(respond_url(panel_survey), data, **JSON)
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["receipt_url"] != second.json()["receipt_url"]
    assert Submission.objects.count() == 1
    assert Report.objects.count() == PRIVATE_COUNT
    assert PlainAnswer.objects.count() == 1
    assert LinkValue.objects.count() == 1
    assert not SkippedAnswer.objects.exists()


def test_a_duplicate_invitation_post_gets_its_receipt_and_stores_nothing_more(
    client, survey
):
    from surveys.collection import services

    (token,) = services.invitations_create(survey=survey, count=1)
    url = reverse("collection:respond_invitation", args=[token])
    data = body(survey)
    assert client.post(url, data, **JSON).status_code == 201
    again = client.post(url, data, **JSON)
    assert again.status_code == 200
    assert again.json()["created"] is False
    assert Submission.objects.count() == 1
    assert Report.objects.count() == PRIVATE_COUNT


def test_a_warm_answer_page_and_post_compile_no_mechanism(client, survey):
    page(client, survey)
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    misses = compiled.cache_info().misses
    page(Client(), survey)
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    assert compiled.cache_info().misses == misses


# --- one page per language -----------------------------------------------------
def test_a_page_kept_in_one_language_is_never_served_in_another(survey):
    survey = offered_in(survey, "es", "fr")
    spanish = Client(HTTP_ACCEPT_LANGUAGE="es").get(respond_url(survey)).content
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(respond_url(survey)).content
    french = Client(HTTP_ACCEPT_LANGUAGE="fr").get(respond_url(survey)).content
    assert respond_page.cache_info() == {"hits": 0, "renders": 3, "size": 3}
    assert b'<html lang="es"' in spanish
    assert b'<html lang="en"' in english
    assert b'<html lang="fr"' in french
    again = Client(HTTP_ACCEPT_LANGUAGE="es").get(respond_url(survey)).content
    assert respond_page.cache_info()["hits"] == 1
    assert b'<html lang="es"' in again


def test_the_picked_language_wins_over_the_browsers_for_the_kept_page(survey):
    survey = offered_in(survey, "es")
    Client(HTTP_ACCEPT_LANGUAGE="es").get(respond_url(survey))  # kept in Spanish
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    client.post(reverse("set_language"), {"language": "en"})
    assert b'<html lang="en"' in client.get(respond_url(survey)).content


# --- a kept page served without loading the survey -----------------------------
def _instances_built(client: Client, url: str, **query: str) -> tuple[int, str]:
    """(survey and question instances built while answering, the page)."""
    built = []

    def count(sender, **kwargs):
        built.append(sender)

    post_init.connect(count, sender=Survey)
    post_init.connect(count, sender=Question)
    try:
        response = client.get(url, query)
    finally:
        post_init.disconnect(count, sender=Survey)
        post_init.disconnect(count, sender=Question)
    return len(built), response.content.decode()


def test_a_kept_page_is_served_with_one_query_and_no_model_instance(survey):
    page(Client(), survey)
    with CaptureQueriesContext(connection) as queries:
        built, html = _instances_built(Client(), respond_url(survey))
    assert built == 0
    assert len(queries) == 1
    assert respond_page.cache_info()["hits"] == 1
    assert token_secret(html)  # this browser's own token, filled in


def test_a_kept_page_served_fast_equals_the_page_served_the_ordinary_way(
    panel_survey,
):
    page(Client(), panel_survey)  # rendered and remembered
    fast = page(Client(), panel_survey, PROLIFIC_PID=PID_A)
    respond_page.cache_clear()  # the same request, the ordinary way
    ordinary = page(Client(), panel_survey, PROLIFIC_PID=PID_A)
    assert TOKEN.sub("", STAMP.sub("", fast)) == TOKEN.sub("", STAMP.sub("", ordinary))
    assert PID_A in fast


def test_a_survey_closed_since_its_page_was_kept_says_so(survey, researcher):
    page(Client(), survey)
    authoring.survey_close(survey=survey, user=researcher)
    response = Client().get(respond_url(survey))
    assert response.status_code == 410
    assert "Send my answers" not in response.content.decode()


def test_a_bad_link_value_on_a_kept_page_is_refused(panel_survey):
    page(Client(), panel_survey)
    response = Client().get(respond_url(panel_survey), {"PROLIFIC_PID": "x" * 300})
    assert response.status_code == 400


def test_a_kept_page_follows_a_text_edit_at_once(survey):
    page(Client(), survey)
    question = survey.questions.order_by("position").first()
    Question.objects.filter(pk=question.pk).update(text="A brand new wording?")
    built, html = _instances_built(Client(), respond_url(survey))
    assert "A brand new wording?" in html
    assert built > 0  # new rows: the ordinary path, rendered again
    assert respond_page.cache_info()["renders"] == 2
