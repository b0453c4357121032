"""Piping in the builder: only an earlier unprotected answer, only into the
text of a question that is not protected, and pipes follow their question
when questions move."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig

pytestmark = pytest.mark.django_db

PLAIN_TEXT = PrivacyConfig(kind="short_text", is_private=False)
PLAIN_YES_NO = PrivacyConfig(kind="yes_no", is_private=False)


@pytest.fixture
def survey(make_survey):
    """1 "Your town?" (open text), 2 "Have you used drugs?" (protected),
    3 "Do you drive?" (not protected)."""
    survey = make_survey(epsilon_budget=10)
    services.question_create(
        survey=survey,
        text="Your town?",
        privacy=PLAIN_TEXT,
        not_private_acknowledged=True,
    )
    services.question_create(
        survey=survey, text="Have you used drugs?", privacy=PrivacyConfig("yes_no")
    )
    services.question_create(
        survey=survey,
        text="Do you drive?",
        privacy=PLAIN_YES_NO,
        not_private_acknowledged=True,
    )
    return survey


def _add(survey, text, privacy=PLAIN_YES_NO):
    return services.question_create(
        survey=survey,
        text=text,
        privacy=privacy,
        not_private_acknowledged=not privacy.is_private,
    )


def test_an_unprotected_question_may_repeat_an_earlier_unprotected_answer(survey):
    made = _add(survey, "Do you drive in {{q1}} every day? ({{q3}})")
    assert made.text == "Do you drive in {{q1}} every day? ({{q3}})"


@pytest.mark.parametrize(
    ("text", "privacy", "says"),
    [
        ("Have you used drugs in {{q1}}?", PrivacyConfig("yes_no"), "is protected"),
        ("Since when ({{q2}})?", PLAIN_YES_NO, "which is protected"),
        ("Again {{q4}}?", PLAIN_YES_NO, "does not come before"),
        ("Again {{q0}}?", PLAIN_YES_NO, "does not have"),
    ],
    ids=["into-a-protected-text", "a-protected-answer", "itself", "a-missing-question"],
)
def test_a_pipe_the_privacy_model_forbids_is_refused_and_nothing_is_saved(
    survey, text, privacy, says
):
    with pytest.raises(ValidationError) as raised:
        _add(survey, text, privacy)
    assert says in raised.value.message_dict["text"][0]
    assert survey.questions.count() == 3


def test_protecting_a_question_whose_answer_is_repeated_is_refused(survey):
    _add(survey, "Do you drive in {{q1}}?")
    town = survey.questions.get(position=1)
    with pytest.raises(ValidationError, match="which is protected"):
        services.question_update(
            question=town, text="Your town?", privacy=PrivacyConfig("yes_no")
        )
    town.refresh_from_db()
    assert not town.is_private


def test_a_move_rewrites_pipes_so_they_name_the_same_question(survey):
    piped = _add(survey, "Do you drive in {{q1}}?")
    services.question_move(question=survey.questions.get(position=2), direction="up")
    piped.refresh_from_db()
    assert survey.questions.get(position=2).text == "Your town?"
    assert piped.text == "Do you drive in {{q2}}?"


def test_a_move_that_puts_a_pipe_before_its_answer_is_refused(survey):
    piped = _add(survey, "Do you drive in {{q3}}?")
    with pytest.raises(ValidationError, match="does not come before"):
        services.question_move(question=piped, direction="up")
    piped.refresh_from_db()
    assert (piped.position, piped.text) == (4, "Do you drive in {{q3}}?")


def test_a_question_whose_answer_is_repeated_cannot_be_deleted(survey):
    _add(survey, "Do you drive in {{q1}}?")
    with pytest.raises(ValidationError, match="repeats this question's answer"):
        services.question_delete(question=survey.questions.get(position=1))
    assert survey.questions.count() == 4


def test_the_builder_page_refuses_a_pipe_into_a_protected_question_saying_why(
    ada_client, survey
):
    response = ada_client.post(
        reverse("authoring:question_create", args=[survey.pk]),
        {
            "kind": "yes_no",
            "text": "Have you used drugs in {{q1}}?",
            "protection": "protected",
            "requested_epsilon": "1",
            "mechanism": "",
        },
    )
    assert response.status_code == 200
    assert "checks a protected question&#x27;s exact text" in response.content.decode()
    assert survey.questions.count() == 3
