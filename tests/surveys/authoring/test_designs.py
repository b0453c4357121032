"""Custom forced-response splits and the ε-LDP unrelated-question design.

The builder stores the researcher's design exactly (fractions), compiles it
to a forced-response spec, shows its exact ε rounded up, refuses bad input on
its field with nothing saved, and carries it through definitions.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

import ldp
from ldp.exact import display_epsilon_significant as epsilon_text
from ldp.exact import log_ratio
from ldp.mechanisms.binary import unrelated_question_spec
from surveys.authoring import definitions, previews, selectors, services
from surveys.authoring.designs import (
    CUSTOM,
    UNRELATED_QUESTION,
    ForcedDesign,
    design_label,
)
from surveys.authoring.forms import QuestionForm
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question, Survey
from surveys.collection.forms import ResponseForm

pytestmark = pytest.mark.django_db

SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[3] / "docs" / "survey-definition.schema.json"
    ).read_text()
)
BASE = {
    "kind": "yes_no",
    "text": "Have you ever cheated on an exam?",
    "protection": "protected",
    "requested_epsilon": "1",
    "mechanism": "forced_response",
}
CUSTOM_DATA = {
    **BASE,
    "design": "custom",
    "fr_truthful": "70",
    "fr_forced_yes": "20",
    "fr_forced_no": "10",
}
UNRELATED_DATA = {
    **BASE,
    "design": "unrelated_question",
    "uq_truthful": "60",
    "uq_prevalence": "25",
}


def _add_url(survey) -> str:
    return reverse("authoring:question_create", kwargs={"pk": survey.pk})


def test_custom_split_is_stored_exactly_as_fractions(ada_client, make_survey):
    survey = make_survey()
    ada_client.post(_add_url(survey), CUSTOM_DATA)
    question = survey.questions.get()
    assert question.design == {
        "type": "custom",
        "truthful": "7/10",
        "forced_yes": "1/5",
        "forced_no": "1/10",
    }
    assert question.spec["mechanism"] == "forced_response"
    assert question.spec["design"] == {
        "truthful": "7/10",
        "forced_yes": "1/5",
        "forced_no": "1/10",
    }
    assert question.spec["weights"] == {"truthful": 7, "forced_yes": 2, "forced_no": 1}


def test_custom_split_delivers_the_exact_epsilon_of_its_design(ada_client, make_survey):
    survey = make_survey()
    ada_client.post(_add_url(survey), CUSTOM_DATA)
    mechanism = ldp.build(survey.questions.get().spec)
    # ε = max(ln((t + a)/a), ln((t + b)/b)) = max(ln 9/2, ln 8) = ln 8.
    assert mechanism.epsilon_exact == log_ratio(8, 1)


def test_tenths_of_a_percent_are_kept_exactly(ada_client, make_survey):
    survey = make_survey()
    data = {
        **CUSTOM_DATA,
        "fr_truthful": "75.2",
        "fr_forced_yes": "12.5",
        "fr_forced_no": "12.3",
    }
    ada_client.post(_add_url(survey), data)
    question = survey.questions.get()
    assert question.spec["design"] == {
        "truthful": "94/125",
        "forced_yes": "1/8",
        "forced_no": "123/1000",
    }
    assert ldp.build(question.spec).epsilon_exact == max(
        log_ratio(752 + 125, 125), log_ratio(752 + 123, 123)
    )


def test_unrelated_question_design_compiles_to_its_forced_response_design(
    ada_client, make_survey
):
    survey = make_survey()
    ada_client.post(_add_url(survey), UNRELATED_DATA)
    question = survey.questions.get()
    assert question.design == {
        "type": "unrelated_question",
        "truthful": "3/5",
        "prevalence": "1/4",
    }
    expected = ldp.build(unrelated_question_spec("3/5", "1/4"))
    mechanism = ldp.build(question.spec)
    assert (
        mechanism.weights
        == expected.weights
        == {
            "truthful": 6,
            "forced_yes": 1,
            "forced_no": 3,
        }
    )
    # a = (1 − t)π = 1/10, b = (1 − t)(1 − π) = 3/10: ε = ln 7.
    assert mechanism.epsilon_exact == log_ratio(7, 1)


def test_a_design_implies_forced_response_when_the_method_is_recommended(
    ada_client, make_survey
):
    survey = make_survey()
    ada_client.post(_add_url(survey), {**CUSTOM_DATA, "mechanism": ""})
    question = survey.questions.get()
    assert question.mechanism == "forced_response"
    assert question.spec["mechanism"] == "forced_response"


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"fr_forced_no": "5"}, "fr_truthful", "add up to 95%; they must add up"),
        ({"fr_forced_no": "0", "fr_truthful": "80"}, "fr_forced_no", "allowed: more"),
        (
            {"fr_forced_yes": "0", "fr_truthful": "90"},
            "fr_forced_yes",
            "at 0 a report could prove the answer",
        ),
        (
            {"fr_truthful": "0", "fr_forced_yes": "50", "fr_forced_no": "50"},
            "fr_truthful",
            "The truthful percentage is 0%; allowed: more than 0.",
        ),
        (
            {"fr_truthful": "70.05", "fr_forced_no": "9.95"},
            "fr_truthful",
            "allowed: a whole or a tenth of a percent",
        ),
        ({"fr_forced_yes": ""}, "fr_forced_yes", "Required for this design."),
        ({"fr_forced_yes": "lots"}, "fr_forced_yes", "Enter a percentage"),
        (
            {"fr_truthful": "99.8", "fr_forced_yes": "0.1", "fr_forced_no": "0.1"},
            "design",
            "respondents' devices refuse any question above",
        ),
        ({"mechanism": "warner"}, "design", "choose Forced response as the method"),
    ],
)
def test_bad_custom_split_is_refused_on_its_field_and_nothing_is_saved(
    ada_client, make_survey, changes, field, message
):
    survey = make_survey()
    response = ada_client.post(_add_url(survey), {**CUSTOM_DATA, **changes})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert any(message in text for text in errors.get(field, [])), errors
    assert not Question.objects.filter(survey=survey).exists()


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"uq_prevalence": "0"},
            "uq_prevalence",
            "The prevalence is 0%; allowed: more than 0 and less than 100 (at 0 or "
            "100 one report would prove the answer).",
        ),
        ({"uq_prevalence": "100"}, "uq_prevalence", "less than 100"),
        ({"uq_truthful": "100"}, "uq_truthful", "less than 100"),
        ({"uq_truthful": ""}, "uq_truthful", "Required for this design."),
        ({"uq_prevalence": "25.25"}, "uq_prevalence", "a whole or a tenth"),
    ],
)
def test_bad_unrelated_question_design_is_refused_and_nothing_is_saved(
    ada_client, make_survey, changes, field, message
):
    survey = make_survey()
    response = ada_client.post(_add_url(survey), {**UNRELATED_DATA, **changes})
    errors = response.context["form"].errors
    assert any(message in text for text in errors.get(field, [])), errors
    assert not Question.objects.filter(survey=survey).exists()


def test_a_refused_design_change_leaves_the_saved_question_as_it_was(
    ada_client, make_survey
):
    survey = make_survey()
    ada_client.post(_add_url(survey), CUSTOM_DATA)
    question = survey.questions.get()
    url = reverse(
        "authoring:question_edit", kwargs={"pk": survey.pk, "question_pk": question.pk}
    )
    ada_client.post(url, {**CUSTOM_DATA, "fr_forced_no": "0", "fr_truthful": "80"})
    question.refresh_from_db()
    assert question.design["forced_no"] == "1/10"
    assert question.spec["weights"]["forced_no"] == 1


def test_edit_page_shows_the_stored_design_again(ada_client, make_survey):
    survey = make_survey()
    ada_client.post(_add_url(survey), UNRELATED_DATA)
    question = survey.questions.get()
    form = QuestionForm(initial=QuestionForm.initial_for(question))
    assert form.initial["design"] == "unrelated_question"
    assert form.initial["uq_truthful"] == "60"
    assert form.initial["uq_prevalence"] == "25"


def test_builder_page_explains_why_no_real_innocuous_question_is_asked(
    ada_client, make_survey
):
    survey = make_survey()
    html = ada_client.get(_add_url(survey)).content.decode()
    assert 'id="why-simulated"' in html
    assert "a “yes” proves it (ε = ∞)" in html
    assert "from other sources" in html


def test_preview_shows_the_designs_exact_epsilon_rounded_up_to_three_digits(
    ada_client, make_survey
):
    survey = make_survey()
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, CUSTOM_DATA).json()
    assert data["ok"] is True
    assert data["epsilon_display"] == "2.08"  # ln 8 = 2.0794…
    assert data["epsilon_display"] == epsilon_text(log_ratio(8, 1))
    assert data["design"]["type"] == "custom"
    assert data["mechanism_label"] == (
        "Forced response, custom split: true answer 70%, “yes” 20%, “no” 10%"
    )
    uq = ada_client.get(url, UNRELATED_DATA).json()
    assert uq["epsilon_display"] == "1.95"  # ln 7 = 1.9459…
    assert "unrelated-question design" in uq["mechanism_label"]
    assert "“yes” 25% of the time" in uq["mechanism_label"]


def test_preview_without_javascript_shows_the_same_epsilon(ada_client, make_survey):
    survey = make_survey()
    html = ada_client.post(
        _add_url(survey), {**CUSTOM_DATA, "preview": "1"}
    ).content.decode()
    assert '<dd id="preview-epsilon">2.08</dd>' in html
    assert not survey.questions.exists()


def test_preview_error_for_a_bad_design_names_the_problem(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, {**CUSTOM_DATA, "fr_forced_no": "5"}).json()
    assert data["ok"] is False
    assert "add up to 95%" in " ".join(data["errors"]["fr_truthful"])


def test_budget_check_uses_the_designs_exact_epsilon(make_survey, add_question):
    survey = make_survey(epsilon_budget=4.0)
    design = ForcedDesign(
        kind=CUSTOM,
        truthful=Fraction(7, 10),
        forced_yes=Fraction(1, 5),
        forced_no=Fraction(1, 10),
    )
    add_question(survey, mechanism="forced_response", design=design)
    add_question(survey, mechanism="forced_response", design=design)
    # 2 ln 8 = 4.159 > 4: publishing is refused.
    total = selectors.survey_epsilon_exact(survey=survey)
    assert abs(total - 2 * log_ratio(8, 1)) < Decimal("1e-25")
    assert services.budget_error(survey, selectors.survey_epsilon_exact(survey=survey))


def test_service_refuses_a_design_on_a_choice_question(make_survey):
    survey = make_survey()
    design = ForcedDesign(
        kind=UNRELATED_QUESTION, truthful=Fraction(1, 2), prevalence=Fraction(1, 4)
    )
    with pytest.raises(ValidationError) as refused:
        services.question_create(
            survey=survey,
            text="Which?",
            privacy=PrivacyConfig(
                kind="single_choice", options=("A", "B"), design=design
            ),
        )
    assert "for yes/no questions only" in str(refused.value)
    assert not survey.questions.exists()


def test_definition_round_trip_keeps_both_designs(ada_client, make_survey, bob):
    survey = make_survey(epsilon_budget=10)
    ada_client.post(_add_url(survey), CUSTOM_DATA)
    ada_client.post(_add_url(survey), UNRELATED_DATA)
    document = definitions.definition_document(survey)
    jsonschema.validate(document, SCHEMA)
    designs = [q["design"] for q in document["questions"]]
    assert designs == [
        {
            "type": "custom",
            "truthful": "7/10",
            "forced_yes": "1/5",
            "forced_no": "1/10",
        },
        {"type": "unrelated_question", "truthful": "3/5", "prevalence": "1/4"},
    ]
    copy = definitions.definition_import(owner=bob, document=document)
    again = definitions.definition_document(copy)
    assert again["questions"] == document["questions"]
    assert [q.spec for q in copy.questions.all()] == [
        q.spec for q in survey.questions.all()
    ]


def test_definition_with_a_bad_design_imports_nothing(ada_client, make_survey, bob):
    survey = make_survey()
    ada_client.post(_add_url(survey), CUSTOM_DATA)
    document = definitions.definition_document(survey)
    document["questions"][0]["design"]["forced_no"] = "1/5"
    with pytest.raises(ValidationError) as refused:
        definitions.definition_import(owner=bob, document=document)
    assert "add up to 110%" in str(refused.value)
    document["questions"][0]["design"] = {"type": "real_question", "truthful": "1/2"}
    with pytest.raises(ValidationError) as refused:
        definitions.definition_import(owner=bob, document=document)
    assert "allowed: custom, unrelated_question" in str(refused.value)
    assert not Survey.objects.filter(owner=bob).exists()


def test_design_label_names_the_split_and_plain_mechanisms_stay_unchanged():
    stored = {"type": "unrelated_question", "truthful": "3/5", "prevalence": "1/4"}
    assert design_label("forced_response", stored) == (
        "Forced response, unrelated-question design: true answer 60%, otherwise a "
        "made-up answer drawn on the device, “yes” 25% of the time"
    )
    assert design_label("warner", None) == "Warner randomized response"
    assert design_label("forced_response", None) == "Forced response"


def test_survey_page_lists_the_design_with_its_epsilon(
    ada_client, make_survey, add_question
):
    survey = make_survey()
    ada_client.post(_add_url(survey), UNRELATED_DATA)
    html = ada_client.get(
        reverse("authoring:survey_detail", kwargs={"pk": survey.pk})
    ).content.decode()
    assert "ε 1.95 · Forced response, unrelated-question design" in html
    summary = selectors.question_privacy_config(survey.questions.get())
    assert previews.preview(summary, n=100).epsilon_display == "1.95"


def test_answer_page_tells_the_device_which_design_to_word(ada_client, make_survey):
    survey = make_survey(epsilon_budget=10)
    ada_client.post(_add_url(survey), CUSTOM_DATA)
    ada_client.post(_add_url(survey), UNRELATED_DATA)
    ada_client.post(_add_url(survey), {**BASE, "mechanism": "warner"})
    config = ResponseForm(survey=survey).js_config()
    assert [q["design"] for q in config["questions"]] == [
        "custom",
        "unrelated_question",
        "",
    ]
    # The figures come from the spec's weights, never from this word.
    assert [q["spec"]["mechanism"] for q in config["questions"]] == [
        "forced_response",
        "forced_response",
        "warner",
    ]


def test_a_duplicated_survey_keeps_each_questions_design(ada, ada_client, make_survey):
    survey = make_survey()
    ada_client.post(_add_url(survey), UNRELATED_DATA)
    copy = services.survey_duplicate(survey=survey, user=ada)
    (question,) = copy.questions.all()
    assert question.design == survey.questions.get().design
    assert question.spec == survey.questions.get().spec


def test_a_design_change_after_responses_starts_a_new_spec_revision(
    ada, ada_client, make_survey, respond
):
    survey = make_survey()
    ada_client.post(_add_url(survey), CUSTOM_DATA)
    survey = services.survey_publish(survey=survey, user=ada)
    respond(survey)
    question = survey.questions.get()
    url = reverse(
        "authoring:question_edit", kwargs={"pk": survey.pk, "question_pk": question.pk}
    )
    changed = {**CUSTOM_DATA, "fr_truthful": "60", "fr_forced_yes": "30"}
    ada_client.post(url, changed)
    question.refresh_from_db()
    assert question.spec_revision == 2
    assert question.design["truthful"] == "3/5"
    first, second = question.spec_revisions.order_by("revision")
    assert first.spec["weights"] == {"truthful": 7, "forced_yes": 2, "forced_no": 1}
    assert second.spec["weights"] == {"truthful": 6, "forced_yes": 3, "forced_no": 1}
