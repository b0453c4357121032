"""Question and survey forms: parsing, and errors on the right field."""

import pytest

from surveys.authoring.forms import QuestionForm
from surveys.authoring.survey_forms import SurveyForm

pytestmark = pytest.mark.django_db

BASE = {
    "kind": "yes_no",
    "text": "Have you ever cheated?",
    "protection": "protected",
    "requested_epsilon": "1",
}


def test_valid_yes_no_form_compiles_warner_and_ignores_options():
    form = QuestionForm({**BASE, "options": "ignored\nlines"})
    assert form.is_valid(), form.errors
    assert form.config.options == ("No", "Yes")
    assert form.compiled.name == "warner"


def test_epsilon_defaults_to_one_when_left_empty():
    form = QuestionForm({**BASE, "requested_epsilon": ""})
    assert form.is_valid(), form.errors
    assert form.config.epsilon == 1.0


def test_mechanism_for_another_kind_is_an_error_on_the_mechanism_field():
    form = QuestionForm({**BASE, "mechanism": "oue"})
    assert not form.is_valid()
    assert "not offered" in form.errors["mechanism"][0]


def test_preview_form_does_not_need_the_question_text():
    assert QuestionForm({**BASE, "text": ""}, preview_only=True).is_valid()
    assert "text" in QuestionForm({**BASE, "text": ""}).errors


def test_duplicate_options_are_an_error_on_the_options_field():
    data = {**BASE, "kind": "single_choice", "options": "Red\nBlue\nred"}
    form = QuestionForm(data)
    assert not form.is_valid()
    assert "more than once" in form.errors["options"][0]


def test_protection_is_a_radio_group_rendered_as_a_fieldset():
    html = QuestionForm()["protection"].as_field_group()
    assert "<fieldset" in html
    assert "<legend" in html


def test_survey_budget_above_one_hundred_is_refused():
    form = SurveyForm(
        {"title": "T", "epsilon_budget": "101", "planned_respondents": "100"}
    )
    assert not form.is_valid()
    assert "epsilon_budget" in form.errors
