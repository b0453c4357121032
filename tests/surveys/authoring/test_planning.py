"""The builder's planning panel: respondents needed for a margin or a difference."""

import math

import pytest
from django.urls import reverse
from scipy import stats

import ldp
from surveys.authoring import previews
from surveys.authoring.forms import QuestionForm
from surveys.authoring.planning_forms import PlanningForm

pytestmark = pytest.mark.django_db

YES_NO = {
    "kind": "yes_no",
    "text": "Have you ever cheated on an exam?",
    "options": "",
    "protection": "protected",
    "requested_epsilon": "1.0",
    "mechanism": "",
}
TARGETS = {"margin": 0.03, "baseline": 0.1, "alternative": 0.2, "power": 0.9}


def _compiled(data):
    form = QuestionForm(data, preview_only=True)
    assert form.is_valid(), form.errors
    return form.compiled


def test_plan_for_a_private_yes_no_question_equals_ldp():
    mechanism = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    plan = previews.plan_study(mechanism, **TARGETS)
    assert plan.for_margin == ldp.sample_size(mechanism, 0.03)
    assert plan.for_difference == ldp.sample_size_for_power(
        mechanism, 0.1, 0.2, 0.05, 0.9, value=1
    )


def test_plan_for_a_choice_question_tests_the_first_option():
    mechanism = ldp.build(ldp.recommend(k=4, epsilon=1.0).spec)
    plan = previews.plan_study(mechanism, **TARGETS)
    assert plan.for_difference == ldp.sample_size_for_power(
        mechanism, 0.1, 0.2, 0.05, 0.9, value=0
    )


def test_plan_for_a_direct_question_uses_the_binomial_formulas():
    plan = previews.plan_study(None, **TARGETS)
    z_a, z_b = stats.norm.ppf(0.95), stats.norm.ppf(0.9)
    top = z_a * math.sqrt(0.1 * 0.9) + z_b * math.sqrt(0.2 * 0.8)
    assert plan.for_margin == ldp.sample_size(None, 0.03)
    assert plan.for_difference == math.ceil(top**2 / 0.1**2)


def test_plan_needs_more_respondents_at_a_smaller_epsilon():
    low = previews.plan_study(
        ldp.build({"mechanism": "warner", "epsilon": 0.5}), **TARGETS
    )
    high = previews.plan_study(
        ldp.build({"mechanism": "warner", "epsilon": 2.0}), **TARGETS
    )
    assert low.for_margin > high.for_margin
    assert low.for_difference > high.for_difference


def test_plan_for_a_number_question_gives_no_difference_figure():
    data = {
        **YES_NO,
        "kind": "numeric",
        "numeric_low": "0",
        "numeric_high": "10",
        "numeric_step": "1",
    }
    plan = previews.plan_study(_compiled(data), **TARGETS)
    assert plan.margin_kind == "mean"
    assert plan.for_margin is not None
    assert plan.for_difference is None


def test_planning_form_blank_fields_take_the_defaults():
    form = PlanningForm({})
    assert form.targets() == {
        "margin": 0.05,
        "baseline": 0.2,
        "alternative": 0.25,
        "power": 0.8,
    }


def test_planning_form_refuses_equal_shares_with_a_message():
    form = PlanningForm({"plan-baseline": "30", "plan-alternative": "30"})
    assert not form.is_valid()
    assert "must differ" in form.errors["alternative"][0]


@pytest.mark.parametrize(
    ("field", "value"),
    [("margin", "0"), ("margin", "abc"), ("power", "100"), ("baseline", "-1")],
)
def test_planning_form_refuses_out_of_range_targets(field, value):
    form = PlanningForm({f"plan-{field}": value})
    assert not form.is_valid()
    assert field in form.errors


def test_preview_endpoint_returns_the_plan(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(
        url,
        {
            **YES_NO,
            "plan-margin": "3",
            "plan-baseline": "10",
            "plan-alternative": "20",
            "plan-power": "90",
        },
    ).json()
    mechanism = _compiled(YES_NO)
    assert data["plan"]["for_margin"] == ldp.sample_size(mechanism, 0.03)
    assert data["plan"]["for_difference"] == ldp.sample_size_for_power(
        mechanism, 0.1, 0.2, 0.05, 0.9
    )
    assert data["plan"]["margin_label"] == (
        "Respondents needed for ±3 percentage points"
    )
    assert data["plan_errors"] == {}


def test_preview_endpoint_reports_bad_planning_input(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, {**YES_NO, "plan-margin": "-2"}).json()
    assert data["ok"] is True
    assert "margin" in data["plan_errors"]


def test_update_preview_button_shows_the_plan_without_javascript(
    ada_client, make_survey
):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    html = ada_client.post(
        url, {**YES_NO, "preview": "1", "plan-margin": "4", "plan-power": "90"}
    ).content.decode()
    mechanism = _compiled(YES_NO)
    expected = ldp.sample_size_for_power(mechanism, 0.2, 0.25, 0.05, 0.9)
    assert f'<dd id="plan-margin">{ldp.sample_size(mechanism, 0.04)}</dd>' in html
    assert f'<dd id="plan-difference">{expected}</dd>' in html
    assert survey.questions.count() == 0


def test_new_question_page_plans_at_the_default_targets(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    html = ada_client.get(url).content.decode()
    assert "Respondents needed for ±5 percentage points" in html
    assert 'name="plan-margin"' in html
