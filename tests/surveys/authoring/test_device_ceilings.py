"""The builder stops what respondents' devices would refuse, before they refuse it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

import ldp
from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("ada", password="correct horse 42")


def yes_no(epsilon: float) -> PrivacyConfig:
    return PrivacyConfig(kind="yes_no", epsilon=epsilon, mechanism="warner")


def test_a_question_above_the_device_ceiling_is_refused_with_the_reason(owner):
    survey = services.survey_create(owner=owner, title="T", epsilon_budget=10.0)
    with pytest.raises(ValidationError) as caught:
        services.question_create(survey=survey, text="Q?", privacy=yes_no(5.5))
    (message,) = caught.value.message_dict["requested_epsilon"]
    assert "devices refuse any question above ε = 5" in message
    assert survey.questions.count() == 0


def test_a_question_at_the_device_ceiling_is_accepted(owner):
    survey = services.survey_create(owner=owner, title="T", epsilon_budget=10.0)
    question = services.question_create(survey=survey, text="Q?", privacy=yes_no(5))
    assert question.pk is not None


def test_publishing_a_survey_above_the_device_total_is_refused(owner):
    survey = services.survey_create(owner=owner, title="T", epsilon_budget=20.0)
    for number in range(3):
        services.question_create(survey=survey, text=f"Q{number}?", privacy=yes_no(4))
    with pytest.raises(ValidationError) as caught:
        services.survey_publish(survey=survey, user=owner)
    assert "devices refuse any survey above" in " ".join(caught.value.messages)
    survey.refresh_from_db()
    assert survey.status == survey.Status.DRAFT


def test_the_budget_field_stops_at_the_survey_ceiling(owner, client):
    client.force_login(owner)
    response = client.post(
        reverse("authoring:survey_create"),
        {"title": "T", "epsilon_budget": "10.5", "planned_respondents": "100"},
    )
    assert response.status_code == 200
    assert "less than or equal to 10" in response.content.decode()


def test_a_live_survey_above_the_ceiling_warns_its_owner(owner, client):
    survey = services.survey_create(owner=owner, title="T", epsilon_budget=10.0)
    question = services.question_create(survey=survey, text="Q?", privacy=yes_no(1))
    services.survey_publish(survey=survey, user=owner)
    # A spec published before the ceiling existed.
    question.refresh_from_db()
    question.spec = ldp.build({"version": 1, "mechanism": "warner", "epsilon": 7}).spec
    question.save()
    client.force_login(owner)
    page = client.get(reverse("authoring:survey_detail", args=[survey.pk]))
    text = page.content.decode()
    assert "Respondents' devices will refuse this survey" in text
    assert "“Q?” delivers ε = 7.00" in text
    assert "respondents will see a refusal and nothing will be sent" in text


def test_a_survey_within_the_ceilings_shows_no_device_warning(owner, client):
    survey = services.survey_create(owner=owner, title="T", epsilon_budget=10.0)
    services.question_create(survey=survey, text="Q?", privacy=yes_no(1))
    client.force_login(owner)
    page = client.get(reverse("authoring:survey_detail", args=[survey.pk]))
    assert "device-ceiling-warning" not in page.content.decode()


def test_the_researcher_sets_contact_and_reanswering(owner, client):
    client.force_login(owner)
    client.post(
        reverse("authoring:survey_create"),
        {
            "title": "T",
            "epsilon_budget": "4",
            "planned_respondents": "100",
            "researcher_contact": "Ada, ada@example.org",
            "allow_reanswer": "on",
        },
    )
    survey = owner.surveys.get()
    assert survey.researcher_contact == "Ada, ada@example.org"
    assert survey.allow_reanswer is True


def test_the_builder_help_names_the_devices_own_limit():
    from django.utils import translation

    from ldp.spec.ceilings import EPSILON_CEILING_QUESTION
    from surveys.authoring.forms import QuestionForm

    with translation.override("en"):
        help_text = str(QuestionForm().fields["requested_epsilon"].help_text)
    assert help_text.endswith(f"at most {EPSILON_CEILING_QUESTION}.")
