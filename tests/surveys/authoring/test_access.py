"""Every authoring URL: anonymous → sign in; another researcher → 404.

The URLconf is iterated, so a new authoring URL without a value for its
arguments here fails this suite instead of going untested.
"""

from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import URLPattern, reverse

from surveys.authoring import urls as authoring_urls
from surveys.authoring.models import Question, Survey

pytestmark = pytest.mark.django_db


def _patterns() -> list[URLPattern]:
    return [p for p in authoring_urls.urlpatterns if isinstance(p, URLPattern)]


def _kwargs(pattern: URLPattern, survey: Survey, question: Question) -> dict:
    values = {"pk": survey.pk, "question_pk": question.pk, "language": "es"}
    names = list(pattern.pattern.converters)
    missing = [name for name in names if name not in values]
    assert not missing, f"{pattern.name}: add a test value for {missing}"
    return {name: values[name] for name in names}


def _url(pattern, survey, question) -> str:
    return reverse(
        f"authoring:{pattern.name}", kwargs=_kwargs(pattern, survey, question)
    )


@pytest.fixture
def bobs_survey(make_survey, add_question, bob):
    survey = make_survey(owner=bob, title="Bob's survey")
    add_question(survey)
    add_question(survey, text="Second")
    return survey


def test_every_authoring_url_is_covered():
    names = {p.name for p in _patterns()}
    assert {"survey_list", "survey_detail", "question_preview"} <= names
    for pattern in _patterns():
        assert pattern.name, f"{pattern.pattern} needs a name"


@pytest.mark.sweeps
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("pattern", _patterns(), ids=lambda p: p.name)
def test_anonymous_visitor_is_sent_to_sign_in(client, bobs_survey, pattern, method):
    url = _url(pattern, bobs_survey, bobs_survey.questions.first())
    response = getattr(client, method)(url)
    assert response.status_code == 302
    assert urlparse(response["Location"]).path == resolve_url(settings.LOGIN_URL)


@pytest.mark.sweeps
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    "pattern",
    [p for p in _patterns() if p.pattern.converters],
    ids=lambda p: p.name,
)
def test_another_researcher_gets_404_and_changes_nothing(
    ada_client, bobs_survey, make_survey, add_question, pattern, method
):
    first = bobs_survey.questions.first()
    before = (
        Survey.objects.filter(pk=bobs_survey.pk).values().get(),
        list(Question.objects.filter(survey=bobs_survey).values()),
        Survey.objects.count(),
    )
    url = _url(pattern, bobs_survey, first)
    data = {"direction": "down", "kind": "yes_no", "text": "x", "title": "Hijacked"}
    response = getattr(ada_client, method)(url, data)
    after = (
        Survey.objects.filter(pk=bobs_survey.pk).values().get(),
        list(Question.objects.filter(survey=bobs_survey).values()),
        Survey.objects.count(),
    )
    assert after == before
    if response.status_code == 405:
        # A method the view never accepts: the same answer for one's own survey,
        # so it reveals nothing about the other survey.
        mine = make_survey()
        own_url = _url(pattern, mine, add_question(mine))
        assert getattr(ada_client, method)(own_url).status_code == 405
    else:
        assert response.status_code == 404


def test_a_question_under_another_survey_id_is_404(
    ada_client, make_survey, bobs_survey
):
    mine = make_survey()
    url = reverse(
        "authoring:question_edit",
        kwargs={"pk": mine.pk, "question_pk": bobs_survey.questions.first().pk},
    )
    assert ada_client.get(url).status_code == 404


def test_survey_list_shows_only_my_surveys(ada_client, make_survey, bobs_survey):
    make_survey(title="Ada's own survey")
    html = ada_client.get(reverse("authoring:survey_list")).content.decode()
    assert "Ada&#x27;s own survey" in html
    assert "Bob&#x27;s survey" not in html
