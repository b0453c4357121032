"""Every analysis page: anonymous → sign in; another researcher → 404.

The URLconf is iterated, so a new analysis URL without a test value for its
arguments fails here instead of going untested.  API URLs answer 401 instead
of redirecting (they take tokens, not sessions).
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import URLPattern, reverse

from surveys.analysis import urls as analysis_urls
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob
from surveys.api_tokens.services import api_token_create
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db

PUBLIC = {"api_openapi"}
# Pages another researcher POSTs to (a form's action); the export request
# accepts only POST (the owner's is answered 302, below).
POSTED = {"api_token_revoke", "export_job_request"}
# The CSV of the model its query names: without one, a 400 saying what to give.
MODEL_CSV = {"regression_csv", "weights_csv", "weights_r"}


def _names(patterns) -> list[str]:
    return [p.name for p in patterns if isinstance(p, URLPattern)]


PAGES = _names(analysis_urls.page_patterns)
API = _names(analysis_urls.api_patterns)


@pytest.fixture
def bobs_survey(bob):
    survey = make_survey(bob, title="Bob's survey")
    simulate(survey, 30)
    return survey


@pytest.fixture
def bobs_token(bob):
    return api_token_create(user=bob, name="bob's script").token


def _url(name: str, survey, token) -> str:
    pattern = next(p for p in analysis_urls.urlpatterns if p.name == name)
    values = {"pk": survey.pk, "token_pk": token.pk}
    names = list(pattern.pattern.converters)
    if name == "export_job_download":  # a written export of the survey's
        job, _ = jobs.export_request(survey=survey, name="reports_csv")
        jobs.job_run(job_id=job.pk)
        values["job_pk"] = job.pk
    elif "job_pk" in names:  # a background analysis job of the survey's
        values["job_pk"] = AnalysisJob.objects.get_or_create(
            survey=survey, kind="crosstab", params={"a": 1, "b": 2}, watermark=0
        )[0].pk
    if "question_pk" in names:  # a protected number question's bins
        values["question_pk"] = survey.questions.get(kind="numeric", is_private=True).pk
    missing = [n for n in names if n not in values]
    assert not missing, f"{name}: add a test value for {missing}"
    return reverse(f"analysis:{name}", kwargs={n: values[n] for n in names})


def test_every_analysis_url_is_named_and_classified():
    assert set(PAGES) | set(API) == set(_names(analysis_urls.urlpatterns))
    assert {"dashboard", "crosstab", "privacy", "export_reports_csv"} <= set(PAGES)
    assert {"api_surveys", "api_survey", "api_reports", "api_openapi"} <= set(API)


@pytest.mark.sweeps
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("name", PAGES)
def test_anonymous_visitor_is_sent_to_sign_in(
    client, bobs_survey, bobs_token, name, method
):
    response = getattr(client, method)(_url(name, bobs_survey, bobs_token))
    assert response.status_code == 302
    assert urlparse(response["Location"]).path == resolve_url(settings.LOGIN_URL)


@pytest.mark.sweeps
@pytest.mark.parametrize("name", [n for n in PAGES if n != "api_tokens"])
def test_another_researcher_gets_404(client, ada, bobs_survey, bobs_token, name):
    client.force_login(ada)
    method = "post" if name in POSTED else "get"
    response = getattr(client, method)(_url(name, bobs_survey, bobs_token))
    assert response.status_code == 404


@pytest.mark.sweeps
@pytest.mark.parametrize(
    "name", [n for n in PAGES if n != "export_job_request" and n not in MODEL_CSV]
)
def test_owner_gets_every_page(client, bob, bobs_survey, bobs_token, name):
    client.force_login(bob)
    response = client.get(_url(name, bobs_survey, bobs_token))
    assert response.status_code == 200


@pytest.mark.parametrize("name", sorted(MODEL_CSV))
def test_owner_asking_for_a_model_csv_without_a_model_is_told_what_to_give(
    client, bob, bobs_survey, bobs_token, name
):
    client.force_login(bob)
    response = client.get(_url(name, bobs_survey, bobs_token))
    assert response.status_code == 400
    assert "on the" in response.content.decode() and "page" in response.content.decode()


def test_owner_can_ask_for_an_export(client, bob, bobs_survey, bobs_token):
    client.force_login(bob)
    url = _url("export_job_request", bobs_survey, bobs_token)
    response = client.post(url, {"export": "reports_csv"})
    assert response.status_code == 302


@pytest.mark.parametrize("name", [n for n in API if n not in PUBLIC])
def test_api_without_a_token_answers_401_even_when_signed_in(
    client, bob, bobs_survey, bobs_token, name
):
    client.force_login(bob)
    response = client.get(_url(name, bobs_survey, bobs_token))
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
