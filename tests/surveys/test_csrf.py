"""CSRF (docs/testing.md, section 5): every state-changing endpoint.

Enumerated from the URLconf, each rejects a POST without a token from an
authorized session, and nothing changes.

Every URL pattern is classified here (a new URL without a class fails the suite):

- STATE_CHANGING: accepts POST; who posts it (a signed-in owner, an anonymous
  visitor, a respondent holding the page, staff for the admin).  Without a
  token → 403 and the database is unchanged; with a token the same request is
  not refused for CSRF (so the 403 was the token, not a missing permission).
- READ_ONLY: GET only; a POST without a token is refused (403) and, with a token,
  refused by method (405) or answered without changing anything.
- BEARER_API: the read-only token API (``Authorization: Bearer``, no cookies, so
  no CSRF token is needed); it refuses POST either way.
"""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils.crypto import get_random_string

from surveys.api_tokens.services import api_token_create
from surveys.authoring import definitions
from surveys.collection import demo, services
from surveys.collection.tokens import new_receipt_code
from tests.surveys.authoring.imports.workbooks import STUDENT_LIFE
from tests.surveys.collection.conftest import body
from tests.surveys.test_authorization_matrix import ALL

STATE_CHANGING = {
    "login": "anonymous",
    "logout": "owner",
    "password_change": "owner",
    "password_reset": "anonymous",
    "password_reset_confirm": "anonymous",
    "signup": "anonymous",
    "signup_verify": "anonymous",
    "two_factor": "owner",
    "two_factor_setup": "owner",
    "two_factor_disable": "owner",
    "authoring:survey_create": "owner",
    "authoring:survey_edit": "owner",
    "authoring:survey_publish": "owner",
    "authoring:survey_close": "owner",
    "authoring:survey_reopen": "owner",
    "authoring:survey_duplicate": "owner",
    "authoring:survey_import": "owner",
    "authoring:questionnaire_import": "owner",
    "authoring:survey_people": "owner",
    "authoring:question_create": "owner",
    "authoring:grid_create": "owner",
    "authoring:question_edit": "owner",
    "authoring:question_move": "owner",
    "authoring:question_delete": "owner",
    "authoring:survey_schedule": "owner",
    "authoring:survey_languages": "owner",
    "authoring:survey_translation": "owner",
    "authoring:survey_archive": "owner",
    "authoring:survey_delete": "owner",
    "collection:invitations": "owner",
    "collection:preview": "owner",  # refuses every submission, but a form all the same
    "collection:test_mode": "owner",
    "collection:test_responses_delete": "owner",
    "collection:withdraw": "anonymous",  # whoever holds the receipt code
    "collection:withdraw_lookup": "anonymous",
    "collection:respond": "respondent",
    "collection:respond_invitation": "respondent",
    "analysis:api_tokens": "owner",
    "analysis:api_token_revoke": "owner",
    "analysis:export_job_request": "owner",
    "analysis:question_bins": "owner",
    "analysis:consistent_method": "owner",
    "collection:recipients": "owner",
    "collection:recipients_send": "owner",
}
# CSRF-exempt on purpose: a mail client's one-click unsubscribe (RFC 8058) posts
# with no cookie or token; the signed token in the URL is the credential, and a
# forged one changes nothing (tests/surveys/invitations/test_mailings.py).
SIGNED_LINK = {"collection:unsubscribe"}
# CSRF-exempt on purpose: the independent device's reports come from another
# origin with no cookie; they accept only what the answer form accepts, which
# anyone holding the link can send, so there is no ambient authority to borrow
# (surveys/collection/device_views.py).
NO_AMBIENT_AUTHORITY = {
    "collection:device_report",
    "collection:device_report_invitation",
}
# CSRF-exempt on purpose: the language picker (a browser cookie, nothing stored;
# a token would set the CSRF cookie on every page, see surveys/urls.py).
BROWSER_PREFERENCE = {"set_language"}
READ_ONLY = {
    "home",
    "healthz",
    "favicon",
    "ping",
    "password_change_done",
    "password_reset_done",
    "audit_log",
    "audit_log_csv",
    "oidc_authentication_init",
    "oidc_authentication_callback",
    "password_reset_complete",
    "authoring:survey_list",
    "authoring:survey_detail",
    "authoring:survey_definition",
    "authoring:survey_import_report",
    "authoring:question_preview",
    "collection:verify",
    "collection:randomizer",
    "collection:wording",
    "collection:declined",
    "collection:receipt",
    "collection:consent",
    "collection:consent_invitation",
    "collection:device_content",
    "collection:device_content_invitation",
    "analysis:dashboard",
    "analysis:dashboard_live",
    "analysis:crosstab",
    "analysis:job_status",
    "analysis:privacy",
    "analysis:pilot",  # GET: finds or queues a simulated job, like crosstab
    "analysis:regression",  # GET: finds or queues a regression job, like crosstab
    "analysis:regression_csv",  # GET: the same job's table as CSV
    "analysis:weights",  # GET: finds or queues a weighting job, like crosstab
    "analysis:weights_csv",  # GET: the same job's table as CSV
    "analysis:weights_r",  # GET: an R script rebuilding the same weights
    "analysis:export_estimates_csv",
    "analysis:export_estimates_json",
    "analysis:export_reports_csv",
    "analysis:export_reports_json",
    "analysis:export_job_download",
    "analysis:export_design",
    "analysis:export_methods_txt",
    "analysis:export_wide_csv",
    "analysis:export_wide_csv_bom",
    "analysis:export_sav",
    "analysis:export_dta",
    "analysis:export_codebook_csv",
    "analysis:export_codebook_json",
    "analysis:export_r",
    "analysis:api_openapi",
    "themes:stylesheet",
    "themes:logo",
    "themes:accent_stylesheet",
}
# Answer any method with the same read (a health probe must never be refused).
ANY_METHOD = {"healthz"}
BEARER_API = {"analysis:api_surveys", "analysis:api_survey", "analysis:api_reports"}

NAMED = [(name, pattern) for name, pattern in ALL if name.split(":")[-1]]


def classify(name: str) -> str | None:
    if name.startswith("admin:"):
        return "staff"
    if name in STATE_CHANGING:
        return STATE_CHANGING[name]
    if name in READ_ONLY:
        return "read_only"
    if name in BEARER_API:
        return "bearer"
    if name in SIGNED_LINK:
        return "signed_link"
    if name in BROWSER_PREFERENCE:
        return "browser_preference"
    if name in NO_AMBIENT_AUTHORITY:
        return "no_ambient_authority"
    return None


CHANGING = [(n, p) for n, p in NAMED if classify(n) not in {None, "read_only"}]
CHANGING = [
    (n, p)
    for n, p in CHANGING
    if classify(n)
    not in {"bearer", "signed_link", "browser_preference", "no_ambient_authority"}
]
READING = [(n, p) for n, p in NAMED if classify(n) == "read_only"]


def test_every_url_pattern_has_a_csrf_class():
    unclassified = [name for name, _ in NAMED if classify(name) is None]
    assert not unclassified, f"classify these URLs for CSRF: {unclassified}"


@pytest.fixture
def world(django_user_model):
    """An owner with a published survey, an invitation, an API token, and staff."""
    ada = django_user_model.objects.create_user("ada")
    staff = django_user_model.objects.create_superuser("root", "root@example.org")
    survey, _ = demo.demo_survey(owner=ada)
    (invitation,) = services.invitations_create(survey=survey, count=1)
    api = api_token_create(user=ada, name="csrf")
    return {
        "ada": ada,
        "staff": staff,
        "survey": survey,
        "question": survey.questions.first(),
        "invitation": invitation,
        "api": api,
    }


def url_for(name: str, pattern, world) -> str:
    survey = world["survey"]
    values = {
        "pk": survey.pk,
        "survey_id": survey.pk,
        "question_pk": world["question"].pk,
        "token_pk": world["api"].token.pk,
        "public_token": survey.public_token,
        "token": world["invitation"],
        "receipt": new_receipt_code(),  # names no submission
        "language": "es",
        "object_id": survey.pk,
        "id": world["ada"].pk,
        "uidb64": "MQ",
        "content_type_id": 1,
        "app_label": "authoring",
        "version": "0" * 16,
        "hex_digits": "0b5cad",
    }
    if "job_pk" in pattern.pattern.converters:
        from surveys.analysis.models import AnalysisJob

        values["job_pk"] = AnalysisJob.objects.get_or_create(
            survey=survey, kind="crosstab", params={"a": 1, "b": 2}, watermark=0
        )[0].pk
    names = list(pattern.pattern.converters) or list(pattern.pattern.regex.groupindex)
    missing = [arg for arg in names if arg not in values]
    assert not missing, f"{name}: give the CSRF test a value for {missing}"
    return reverse(name, kwargs={arg: values[arg] for arg in names})


def data_for(name: str, world) -> dict:
    """A body that would do something if the token were not checked."""
    survey = world["survey"]
    return {
        "collection:respond": body(survey),
        "collection:respond_invitation": body(survey),
        "collection:invitations": {"count": "5"},
        "collection:test_mode": body(survey),
        "authoring:survey_schedule": {"time_zone": "UTC", "invitation_only": "on"},
        "authoring:survey_delete": {"confirm_title": survey.title},
        "authoring:survey_create": {"title": "Made by a forged form"},
        "collection:recipients": {
            "addresses": SimpleUploadedFile("forged.csv", b"eve@example.org\n")
        },
        "authoring:survey_import": {
            "definition": SimpleUploadedFile(
                "forged.json",
                definitions.definition_json(survey).encode(),
                "application/json",
            )
        },
        "authoring:questionnaire_import": {
            "questionnaire": SimpleUploadedFile("forged.xlsx", STUDENT_LIFE)
        },
        "authoring:survey_edit": {"title": "Renamed by a forged form"},
        "authoring:survey_people": {"action": "remove", "collaborator": "1"},
        "authoring:question_move": {"direction": "down"},
        "analysis:api_tokens": {"name": "forged"},
        "analysis:export_job_request": {"export": "reports_csv"},
        "analysis:question_bins": {"cuts": "1, 2"},
        "analysis:consistent_method": {"method": "mle"},
        "login": {"username": "ada", "password": "x" * 12},
        "password_reset": {"email": "ada@example.org"},
    }.get(name, {})


def database_state() -> dict:
    """Every row of every model: what a forged request must leave alone."""
    return {
        model._meta.label: list(model._default_manager.order_by("pk").values())
        for model in apps.get_models()
    }


def session_for(role: str, url: str, world) -> Client:
    """A browser that holds the CSRF cookie (as any visitor's browser would)."""
    client = Client(enforce_csrf_checks=True)
    if role == "owner":
        client.force_login(world["ada"])
    elif role == "staff":
        client.force_login(world["staff"])
    elif role == "respondent":
        assert client.get(url).status_code == 200  # the form page it answers
    client.cookies["csrftoken"] = get_random_string(32)
    return client


def refused_for_csrf(response) -> bool:
    """Django's CSRF failure: 403 with its own explanation."""
    return (
        response.status_code == 403 and b"CSRF verification failed" in response.content
    )


def with_token(client: Client) -> dict:
    return {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize(("name", "pattern"), CHANGING, ids=[n for n, _ in CHANGING])
def test_state_changing_post_without_token_is_refused_and_changes_nothing(
    world, name, pattern
):
    url = url_for(name, pattern, world)
    client = session_for(classify(name), url, world)
    before = database_state()
    response = client.post(url, data_for(name, world))
    assert refused_for_csrf(response), (name, response.status_code)
    assert database_state() == before, name
    # The same session with the token is not refused for CSRF (a 403 there is
    # the admin's read-only models refusing by permission).
    allowed = client.post(url, data_for(name, world), **with_token(client))
    assert not refused_for_csrf(allowed), name


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize(("name", "pattern"), READING, ids=[n for n, _ in READING])
def test_read_only_url_refuses_post_and_changes_nothing(world, name, pattern):
    url = url_for(name, pattern, world)
    client = session_for("owner", url, world)
    before = database_state()
    assert refused_for_csrf(client.post(url)), name
    response = client.post(url, **with_token(client))
    assert response.status_code == (200 if name in ANY_METHOD else 405), (
        name,
        response.status_code,
    )
    assert database_state() == before, name


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(BEARER_API))
def test_bearer_token_api_refuses_post(world, name):
    url = url_for(name, dict(ALL)[name], world)
    client = Client(enforce_csrf_checks=True)
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {world['api'].secret}"}
    assert client.get(url, **bearer).status_code == 200
    before = database_state()
    refused = client.post(url, **bearer)
    assert refused_for_csrf(refused) or refused.status_code == 405
    client.cookies["csrftoken"] = get_random_string(32)
    assert client.post(url, **bearer, **with_token(client)).status_code == 405
    assert database_state() == before


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(NO_AMBIENT_AUTHORITY))
def test_device_reports_need_no_token_and_read_no_cookie(world, name):
    """No cookie is read, so none is needed: a post with a forged session and
    CSRF cookie but no token is validated like any other and stored once."""
    url = url_for(name, dict(NAMED)[name], world)
    client = Client(enforce_csrf_checks=True)
    client.force_login(world["ada"])  # a session cookie that must not matter
    client.cookies["csrftoken"] = get_random_string(32)
    response = client.post(url, body(world["survey"]))
    assert not refused_for_csrf(response), name
    assert response.status_code == 201, (name, response.content)
    assert response.json()["receipt_url"]
