"""Quotas on unprotected answers and the device's random order: what the
builder accepts and what the answer page gives the device."""

from __future__ import annotations

import uuid

import pytest
from django.core.exceptions import ValidationError

from surveys.authoring import services as authoring
from surveys.authoring.forms import QuestionForm
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.forms import ResponseForm
from surveys.collection.quota_state import full_cells
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk

pytestmark = pytest.mark.django_db

COLOURS = ("Red", "Green")


def _question_form(**data):
    base = {
        "kind": "single_choice",
        "text": "Colour?",
        "options": "Red\nGreen",
        "protection": "plain",
        "not_private_acknowledged": "on",
        "other_option": "on",
    }
    return QuestionForm(data={**base, **data})


def test_quota_lines_name_answers_by_their_labels_other_included():
    form = _question_form(quotas="red: 2\nOther : 1")
    assert form.is_valid(), form.errors
    assert form.service_kwargs()["quotas"] == {"0": 2, "2": 1}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"quotas": "Blue: 3"}, "is not a quota"),
        ({"quotas": "Red: many"}, "is not a quota"),
        (
            {"protection": "protected", "other_option": "", "quotas": "Red: 3"},
            "Quotas are for unprotected questions only",
        ),
    ],
    ids=["unknown-answer", "no-number", "protected"],
)
def test_the_builder_refuses_a_quota_it_cannot_keep(data, message):
    form = _question_form(**data)
    assert not form.is_valid()
    assert any(message in error for error in form.errors["quotas"])


def test_a_protected_question_never_stores_a_quota(researcher):
    survey = authoring.survey_create(owner=researcher, title="No")
    with pytest.raises(ValidationError) as caught:
        authoring.question_create(
            survey=survey,
            text="Cheated?",
            privacy=PrivacyConfig(kind="yes_no"),
            quotas={"1": 5},
        )
    assert "quotas" in caught.value.message_dict


@pytest.fixture
def survey(researcher):
    survey = authoring.survey_create(
        owner=researcher, title="Flow", completion_code="ABC123"
    )
    colour = authoring.question_create(
        survey=survey,
        text="Colour?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=COLOURS, other_option=True
        ),
        not_private_acknowledged=True,
        shuffle_options=True,
        quotas={"0": 2},
    )
    authoring.question_create(
        survey=survey,
        text="Why?",
        privacy=PrivacyConfig(kind="short_text", is_private=False),
        not_private_acknowledged=True,
        show_if={"question": colour.pk, "any_of": [2]},
    )
    authoring.question_create(
        survey=survey, text="Cheated?", privacy=PrivacyConfig(kind="yes_no")
    )
    authoring.question_create(
        survey=survey, text="Lied?", privacy=PrivacyConfig(kind="yes_no")
    )
    survey.shuffle_questions = True
    survey.save(update_fields=["shuffle_questions"])
    return authoring.survey_publish(survey=survey, user=researcher)


def _answer(survey, colour: int, count: int) -> None:
    questions = {q.text: q for q in survey.questions.all()}
    cheated, lied = questions["Cheated?"], questions["Lied?"]
    submissions_ingest_bulk(
        survey=survey,
        responses=[
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports={q.pk: SentReport(q.spec_revision, 0) for q in (cheated, lied)},
                plain_answers={questions["Colour?"].pk: colour},
            )
            for _ in range(count)
        ],
    )


def test_a_cell_is_full_once_its_quota_of_counted_submissions_arrived(survey):
    colour = survey.questions.get(text="Colour?")
    _answer(survey, 0, 1)
    _answer(survey, 1, 3)
    assert full_cells(survey) == {}
    _answer(survey, 0, 1)
    assert full_cells(survey) == {str(colour.pk): [0]}


def test_the_device_is_given_the_full_cells_the_order_and_the_completion_code(
    survey,
):
    _answer(survey, 0, 2)
    questions = {q.text: q.pk for q in survey.questions.all()}
    config = ResponseForm(survey=survey).js_config()
    assert config["quotas_full"] == {str(questions["Colour?"]): [0]}
    assert config["completion"] == {"code": "ABC123", "url": ""}
    assert config["order"] == {
        "options": [questions["Colour?"]],
        # The question that decides display logic and the one it shows keep
        # their places; only the others swap.
        "movable": [questions["Cheated?"], questions["Lied?"]],
    }


def test_a_survey_without_quotas_gives_the_device_no_completion_code(researcher):
    survey = authoring.survey_create(
        owner=researcher, title="Plain", completion_code="X1"
    )
    authoring.question_create(
        survey=survey, text="Cheated?", privacy=PrivacyConfig(kind="yes_no")
    )
    config = ResponseForm(survey=survey).js_config()
    assert "completion" not in config and "quotas_full" not in config
    assert config["order"] == {"options": [], "movable": []}
