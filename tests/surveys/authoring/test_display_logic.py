"""Display logic in the builder: only earlier unprotected answers decide."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.authoring import display_logic, services
from surveys.authoring.mechanisms import PrivacyConfig

pytestmark = pytest.mark.django_db

DRIVES = PrivacyConfig(kind="yes_no", is_private=False)


@pytest.fixture
def survey(make_survey):
    survey = make_survey(epsilon_budget=10)
    services.question_create(
        survey=survey,
        text="Do you drive?",
        privacy=DRIVES,
        not_private_acknowledged=True,
    )
    services.question_create(
        survey=survey, text="Have you used drugs?", privacy=PrivacyConfig("yes_no")
    )
    return survey


def _after_drinking(survey, drives):
    """A protected follow-up shown only to those who answer "Yes" to ``drives``."""
    return services.question_create(
        survey=survey,
        text="After drinking?",
        privacy=PrivacyConfig("yes_no"),
        show_if={"question": drives.pk, "any_of": [1]},
    )


def _q(survey, position):
    return survey.questions.get(position=position)


def test_a_question_may_depend_on_an_earlier_unprotected_answer(survey):
    drives = _q(survey, 1)
    follow = services.question_create(
        survey=survey,
        text="Have you driven after drinking?",
        privacy=PrivacyConfig("yes_no"),
        show_if={"question": drives.pk, "any_of": [1]},
    )
    assert follow.show_if == {"question": drives.pk, "any_of": [1]}
    assert display_logic.describe(follow.show_if, survey) == (
        "Shown only when “Do you drive?” is “Yes”."
    )


def test_a_protected_question_may_not_decide_and_the_builder_says_why(survey):
    drugs = _q(survey, 2)
    with pytest.raises(ValidationError) as raised:
        services.question_create(
            survey=survey,
            text="Which drugs?",
            privacy=PrivacyConfig("yes_no"),
            show_if={"question": drugs.pk, "any_of": [1]},
        )
    message = raised.value.message_dict["show_if"][0]
    assert "protected" in message and "reveal that answer" in message
    assert survey.questions.count() == 2


def test_a_condition_on_an_answer_the_question_does_not_offer_is_refused(survey):
    with pytest.raises(ValidationError, match="has no answer 7"):
        services.question_create(
            survey=survey,
            text="Follow-up?",
            privacy=PrivacyConfig("yes_no"),
            show_if={"question": _q(survey, 1).pk, "any_of": [7]},
        )


def test_a_question_may_not_depend_on_a_later_one(survey):
    with pytest.raises(ValidationError, match="comes after"):
        services.question_update(
            question=_q(survey, 1),
            text="Do you drive?",
            privacy=DRIVES,
            not_private_acknowledged=True,
            show_if={"question": _q(survey, 1).pk, "any_of": [1]},
        )


def test_deleting_a_question_others_depend_on_is_refused(survey):
    drives = _q(survey, 1)
    _after_drinking(survey, drives)
    with pytest.raises(ValidationError, match="remove that condition first"):
        services.question_delete(question=drives)
    assert survey.questions.count() == 3


def test_moving_a_question_above_what_it_depends_on_is_refused(survey):
    drives = _q(survey, 1)
    follow = _after_drinking(survey, drives)
    services.question_move(question=follow, direction="up")  # still after it
    with pytest.raises(ValidationError, match="only depend on an earlier one"):
        services.question_move(
            question=follow.__class__.objects.get(pk=follow.pk), direction="up"
        )


def test_making_the_deciding_question_protected_is_refused(survey):
    drives = _q(survey, 1)
    _after_drinking(survey, drives)
    with pytest.raises(ValidationError, match="break their conditions"):
        services.question_update(
            question=drives, text="Do you drive?", privacy=PrivacyConfig("yes_no")
        )
    assert not survey.questions.get(pk=drives.pk).is_private


def test_a_duplicate_keeps_its_conditions_on_its_own_questions(survey, ada):
    drives = _q(survey, 1)
    _after_drinking(survey, drives)
    copy = services.survey_duplicate(survey=survey, user=ada)
    copied_drives = copy.questions.get(position=1)
    assert copy.questions.get(position=3).show_if == {
        "question": copied_drives.pk,
        "any_of": [1],
    }


def test_the_builder_offers_only_earlier_unprotected_answers(ada_client, survey):
    html = ada_client.get(
        reverse("authoring:question_create", args=[survey.pk])
    ).content.decode()
    drives = _q(survey, 1)
    assert f'value="{drives.pk}:1"' in html and "“Do you drive?” is “Yes”" in html
    assert "Have you used drugs?” is" not in html


def test_the_builder_form_saves_a_condition(ada_client, survey):
    drives = _q(survey, 1)
    response = ada_client.post(
        reverse("authoring:question_create", args=[survey.pk]),
        {
            "kind": "yes_no",
            "text": "After drinking?",
            "protection": "protected",
            "requested_epsilon": "1",
            "mechanism": "",
            "show_if": [f"{drives.pk}:1"],
        },
    )
    assert response.status_code == 302
    assert survey.questions.get(position=3).show_if == {
        "question": drives.pk,
        "any_of": [1],
    }
