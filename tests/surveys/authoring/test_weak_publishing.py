"""Publishing a survey respondents' devices would call weakly protected asks first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("ada", password="correct horse 42")


def survey_with(owner, *epsilons: float):
    survey = services.survey_create(owner=owner, title="T", epsilon_budget=10.0)
    for number, epsilon in enumerate(epsilons):
        services.question_create(
            survey=survey,
            text=f"Q{number}?",
            privacy=PrivacyConfig(kind="yes_no", epsilon=epsilon, mechanism="warner"),
        )
    return survey


def publish(client, survey, **data):
    return client.post(reverse("authoring:survey_publish", args=[survey.pk]), data)


def test_a_weak_survey_is_not_published_without_the_confirmation(owner, client):
    # ln 9 ≈ 2.197: two questions at ε = 1.5 read "weak" overall (R ≈ 20).
    survey = survey_with(owner, 1.5, 1.5)
    client.force_login(owner)
    response = publish(client, survey)
    survey.refresh_from_db()
    assert survey.status == survey.Status.DRAFT
    page = client.get(response.url).content.decode()
    assert "more than 90% sure" in page


def test_a_weak_survey_is_published_with_the_confirmation(owner, client):
    survey = survey_with(owner, 1.5, 1.5)
    client.force_login(owner)
    publish(client, survey, confirm_weak="on")
    survey.refresh_from_db()
    assert survey.status == survey.Status.OPEN


def test_a_survey_that_reads_moderate_publishes_without_asking(owner, client):
    survey = survey_with(owner, 1.0, 1.0)  # R ≈ e² ≈ 7.4: moderate
    client.force_login(owner)
    publish(client, survey)
    survey.refresh_from_db()
    assert survey.status == survey.Status.OPEN


@pytest.mark.parametrize(("epsilons", "warned"), [((1.5, 1.5), True), ((1.0,), False)])
def test_the_survey_page_warns_and_offers_the_confirmation_only_when_weak(
    owner, client, epsilons, warned
):
    survey = survey_with(owner, *epsilons)
    client.force_login(owner)
    page = client.get(reverse("authoring:survey_detail", args=[survey.pk]))
    text = page.content.decode()
    assert ('id="weak-protection-warning"' in text) is warned
    assert ('name="confirm_weak"' in text) is warned


def test_the_builder_preview_carries_the_other_questions_specs(owner, client):
    survey = survey_with(owner, 1.0, 2.0)
    first, second = survey.questions.order_by("position")
    client.force_login(owner)
    response = client.get(
        reverse("authoring:question_preview", args=[survey.pk]),
        {
            "kind": "yes_no",
            "text": "Q",
            "protection": "protected",
            "requested_epsilon": "1",
            "question": str(first.pk),
        },
    )
    data = response.json()
    assert data["ok"] is True
    assert data["other_specs"] == [second.spec]
