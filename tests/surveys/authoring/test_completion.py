"""Completion code and redirect: one code per survey, an https address only."""

import pytest
from django.urls import reverse

from surveys.authoring.models import Survey
from surveys.authoring.survey_forms import SurveyForm

pytestmark = pytest.mark.django_db

PROLIFIC = "https://app.prolific.com/submissions/complete?cc={code}"
BASE = {"title": "Panel study", "epsilon_budget": "4", "planned_respondents": "100"}


def form(**fields) -> SurveyForm:
    return SurveyForm({**BASE, **fields})


def test_the_redirect_address_gets_the_code_in_place_of_the_placeholder():
    survey = Survey(completion_code="C0DE-42", completion_redirect_url=PROLIFIC)
    assert survey.completion_url() == (
        "https://app.prolific.com/submissions/complete?cc=C0DE-42"
    )


def test_no_redirect_address_means_no_redirect():
    assert Survey(completion_code="C0DE").completion_url() == ""


def test_a_plain_http_redirect_is_refused_with_the_reason():
    bound = form(completion_redirect_url="http://example.org/done?cc={code}")
    bound.data["completion_code"] = "C0DE"
    assert not bound.is_valid()
    assert "http is refused" in bound.errors["completion_redirect_url"][0]


def test_a_redirect_that_is_not_an_address_is_refused():
    bound = form(completion_redirect_url="javascript:alert(1)")
    assert not bound.is_valid()
    assert "completion_redirect_url" in bound.errors


def test_a_placeholder_without_a_code_is_refused():
    bound = form(completion_redirect_url=PROLIFIC)
    assert not bound.is_valid()
    assert "set the completion code" in bound.errors["completion_code"][0]


def test_a_code_with_characters_outside_letters_and_digits_is_refused():
    bound = form(completion_code="a code with spaces")
    assert not bound.is_valid()
    assert "letters, digits" in bound.errors["completion_code"][0]


def test_the_settings_page_saves_the_code_and_redirect(ada_client, ada):
    response = ada_client.post(
        reverse("authoring:survey_create"),
        {**BASE, "completion_code": "C0DE", "completion_redirect_url": PROLIFIC},
    )
    assert response.status_code == 302
    survey = Survey.objects.get(owner=ada)
    assert (survey.completion_code, survey.completion_redirect_url) == (
        "C0DE",
        PROLIFIC,
    )


def test_the_settings_page_says_why_the_code_is_one_per_survey(ada_client):
    html = ada_client.get(reverse("authoring:survey_create")).content.decode()
    assert "a code per respondent would link a person to their submission" in html
