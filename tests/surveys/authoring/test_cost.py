"""Bounded cost: grids too fine to compile within the page budget are refused
everywhere (form, preview, services, publishing), and nothing compiles or plans
the same spec twice.  The budget itself is measured by benchmarks/page_cost.py
(as a ratio to a trivial view), not timed here."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.urls import reverse

import ldp
from surveys.authoring import compiled, mechanisms, previews, services
from surveys.authoring.mechanisms import NUMERIC_LEVELS_MAX, PrivacyConfig
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.authoring.validation import OPTIONS_MAX

pytestmark = pytest.mark.django_db

# ldp's own limit: 1,001 levels at ε = 0.01 took 6 s to preview and 14 s to add.
LDP_LIMIT_GRID = {
    "kind": "numeric",
    "text": "How much did you earn last month?",
    "numeric_low": "0",
    "numeric_high": "1000",
    "numeric_step": "1",
    "protection": "protected",
    "requested_epsilon": "0.01",
    "mechanism": "",
}
REASON = "takes the server too long"


def numeric(high: str, step: str = "1", **privacy) -> PrivacyConfig:
    privacy.setdefault("epsilon", 0.05)
    return PrivacyConfig(
        kind="numeric",
        low=Decimal(0),
        high=Decimal(high),
        step=Decimal(step),
        **privacy,
    )


@pytest.fixture(autouse=True)
def cold_caches():
    compiled.cache_clear()
    cache.clear()
    yield
    compiled.cache_clear()


def test_the_limit_is_far_below_ldps_grid_limit():
    assert NUMERIC_LEVELS_MAX == 201
    assert NUMERIC_LEVELS_MAX < 1001


def test_adding_a_grid_at_ldps_own_limit_is_refused_with_the_limit_and_why(
    ada_client, make_survey
):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    response = ada_client.post(url, LDP_LIMIT_GRID)
    page = response.content.decode()
    assert response.status_code == 200
    assert "That gives 1001 possible values; allowed: at most 201" in page
    assert REASON in page
    assert not survey.questions.exists()
    assert compiled.cache_info().misses == 0  # refused before compiling


def test_previewing_a_grid_at_ldps_own_limit_is_refused_before_compiling(
    ada_client, make_survey
):
    survey = make_survey()
    url = reverse("authoring:question_preview", kwargs={"pk": survey.pk})
    data = ada_client.get(url, LDP_LIMIT_GRID).json()
    assert data["ok"] is False
    (message,) = data["errors"]["numeric_step"]
    assert "allowed: at most 201" in message and REASON in message
    assert compiled.cache_info().misses == 0


def test_service_refuses_a_grid_at_ldps_own_limit_and_stores_nothing(make_survey):
    survey = make_survey()
    with pytest.raises(ValidationError) as refused:
        services.question_create(
            survey=survey, text="Earnings", privacy=numeric("1000")
        )
    assert "at most 201" in refused.value.message_dict["numeric_step"][0]
    assert not Question.objects.exists()


def test_editing_a_question_to_a_finer_grid_is_refused_and_changes_nothing(
    make_survey,
):
    survey = make_survey()
    question = services.question_create(
        survey=survey, text="Earnings", privacy=numeric("100", mechanism="geometric")
    )
    spec = question.spec
    with pytest.raises(ValidationError):
        services.question_update(
            question=question, text="Earnings", privacy=numeric("100", step="0.1")
        )
    question.refresh_from_db()
    assert (question.numeric_step, question.spec) == (Decimal(1), spec)


def test_compiling_a_grid_beyond_the_limit_is_refused_by_the_mechanism_layer():
    with pytest.raises(mechanisms.MechanismError, match="at most 201") as refused:
        mechanisms.build(numeric("1000", mechanism="gaussian"))
    assert REASON in str(refused.value)


def test_publishing_a_stored_question_beyond_the_limit_is_refused(make_survey, ada):
    survey = make_survey()
    # Stored without the services (as by an older release): publishing compiles.
    Question.objects.create(
        survey=survey,
        position=1,
        kind="numeric",
        text="Earnings",
        numeric_low=0,
        numeric_high=1000,
        numeric_step=1,
        requested_epsilon=0.01,
    )
    with pytest.raises(ValidationError, match="at most 201"):
        services.survey_publish(survey=survey, user=ada)
    survey.refresh_from_db()
    assert survey.status == Survey.Status.DRAFT
    assert not SpecRevision.objects.exists()
    assert Question.objects.get().spec is None


@pytest.mark.parametrize(
    ("high", "step", "levels"), [("200", "1", 201), ("10", "0.05", 201)]
)
def test_a_grid_at_the_limit_is_accepted(make_survey, high, step, levels):
    survey = make_survey()
    question = services.question_create(
        survey=survey, text="Hours", privacy=numeric(high, step=step)
    )
    assert question.compiled_mechanism().k == levels == NUMERIC_LEVELS_MAX


def test_the_limit_counts_levels_not_the_range(make_survey):
    with pytest.raises(ValidationError, match="That gives 251 possible values"):
        services.question_create(
            survey=make_survey(), text="Hours", privacy=numeric("10", step="0.04")
        )


def test_pages_after_adding_a_question_never_compile_its_spec_again(
    ada_client, make_survey, ada
):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    added = ada_client.post(
        url,
        {
            **LDP_LIMIT_GRID,
            "numeric_high": "200",
            "requested_epsilon": "0.05",
            "mechanism": "geometric",
        },
    )
    assert added.status_code == 302
    survey = services.survey_publish(survey=survey, user=ada)
    compiles = compiled.cache_info().misses
    pages = [
        reverse("authoring:survey_detail", kwargs={"pk": survey.pk}),
        reverse("collection:consent", args=[survey.public_token]),
        reverse("collection:respond", args=[survey.public_token]),
        reverse("analysis:dashboard", kwargs={"pk": survey.pk}),
    ]
    for page in pages * 2:
        assert ada_client.get(page).status_code == 200
    assert compiled.cache_info().misses == compiles


def test_a_stored_spec_finds_the_mechanism_compiled_from_the_requested_one():
    requested = mechanisms.requested_spec(numeric("50", mechanism="gaussian"))
    mechanism = compiled.compiled_mechanism(requested)
    assert "weights" not in requested and "weights" in mechanism.spec
    assert compiled.compiled_mechanism(mechanism.spec) is mechanism
    assert compiled.cache_info().misses == 1


def test_preview_figures_are_kept_in_the_shared_cache_under_the_compiled_spec():
    config = numeric("100", mechanism="piecewise")
    first = previews.preview(config, n=100)
    key = previews.preview_cache_key(first.spec)
    kept = cache.get(key)
    assert kept["variance"] == pytest.approx(
        ldp.build(first.spec).worst_case_variance()
    )
    # Another n reuses the kept figures: the margin scales as 1/sqrt(n).
    second = previews.preview(config, n=400)
    assert second.margin == pytest.approx(first.margin / 2)
    assert cache.get(key) == kept


def test_the_recommended_mechanism_is_kept_in_the_shared_cache():
    config = numeric("100")
    assert cache.get(mechanisms.recommendation_cache_key(config)) is None
    name = mechanisms.requested_spec(config)["mechanism"]
    assert cache.get(mechanisms.recommendation_cache_key(config)) == name
    assert (
        name
        == ldp.recommend_numeric(epsilon=0.01, low="0", high="100", step="1").mechanism
    )


@pytest.mark.parametrize(
    "config",
    [
        PrivacyConfig(kind="yes_no", epsilon=1.0),
        PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="forced_response"),
        PrivacyConfig(kind="single_choice", options=("a", "b", "c"), mechanism="oue"),
        PrivacyConfig(kind="ordinal", options=("a", "b", "c", "d")),
        PrivacyConfig(kind="multi_select", options=("a", "b", "c"), max_selections=2),
        PrivacyConfig(
            kind="multi_select", options=("a", "b", "c"), mechanism="multi_rr"
        ),
        numeric("20", epsilon=1.0, mechanism="geometric"),
        numeric("20", epsilon=1.0, mechanism="duchi"),
    ],
    ids=lambda config: f"{config.kind}-{config.mechanism or 'recommended'}",
)
def test_preview_margins_are_ldps_planning_figures(config):
    mechanism = mechanisms.build(config)
    preview = previews.preview(config, n=750)
    values = mechanism.input_values()
    if values is None:
        assert preview.margin == pytest.approx(ldp.margin_of_error(mechanism, 750))
        assert preview.n_for_five_points == ldp.sample_size(mechanism, 0.05)
    else:
        spread = float(values.max() - values.min())
        assert preview.margin == pytest.approx(ldp.mean_margin_of_error(mechanism, 750))
        assert preview.n_for_five_points == ldp.mean_sample_size(
            mechanism, 0.05 * spread
        )
    assert math.isfinite(preview.margin)


@pytest.mark.parametrize("kind", ["single_choice", "multi_select"])
def test_more_options_than_the_answer_page_can_serve_are_refused(make_survey, kind):
    survey = make_survey()
    too_many = tuple(f"Option {i}" for i in range(OPTIONS_MAX + 1))
    with pytest.raises(ValidationError) as refused:
        services.question_create(
            survey=survey, text="Which?", privacy=PrivacyConfig(kind, options=too_many)
        )
    (message,) = refused.value.message_dict["options"]
    assert f"Give at most 256 options (got {OPTIONS_MAX + 1})" in message
    assert "too slow to serve" in message
    assert not Question.objects.exists()
    question = services.question_create(
        survey=survey, text="Which?", privacy=PrivacyConfig(kind, options=too_many[:-1])
    )
    assert question.compiled_mechanism().k == OPTIONS_MAX


def _plain_questions(survey, count: int, options: list[str]) -> None:
    """``count`` stored questions, as if added one by one (no compile needed)."""
    kind = "yes_no" if options == ["No", "Yes"] else "single_choice"
    Question.objects.bulk_create(
        Question(
            survey=survey,
            position=position,
            kind=kind,
            text=f"Question {position}",
            options=options,
            is_private=False,
            not_private_acknowledged=True,
        )
        for position in range(1, count + 1)
    )


def test_a_question_beyond_the_surveys_question_limit_is_refused(make_survey):
    survey = make_survey()
    _plain_questions(survey, services.SURVEY_QUESTIONS_MAX, ["No", "Yes"])
    with pytest.raises(ValidationError) as refused:
        services.question_create(
            survey=survey, text="One more?", privacy=PrivacyConfig("yes_no")
        )
    (message,) = refused.value.message_dict["__all__"]
    assert "would have 51 questions; allowed: at most 50" in message
    assert "too slow to serve" in message
    assert survey.questions.count() == services.SURVEY_QUESTIONS_MAX


def test_options_beyond_the_surveys_option_limit_are_refused_in_the_builder(
    ada_client, make_survey
):
    survey = make_survey()
    _plain_questions(survey, 2, [f"Option {i}" for i in range(256)])
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    response = ada_client.post(
        url,
        {
            "kind": "yes_no",
            "text": "One more?",
            "protection": "protected",
            "requested_epsilon": "1",
        },
    )
    page = response.content.decode()
    assert "would offer 514 answer options in all; allowed: at most 512" in page
    assert survey.questions.count() == 2


def test_editing_a_question_to_more_options_than_the_survey_allows_changes_nothing(
    make_survey,
):
    survey = make_survey()
    _plain_questions(survey, 1, [f"Option {i}" for i in range(257)])
    question = services.question_create(
        survey=survey,
        text="Which?",
        privacy=PrivacyConfig("single_choice", options=("A", "B", "C")),
    )
    many = tuple(f"Choice {i}" for i in range(256))
    with pytest.raises(ValidationError, match="would offer 513"):
        services.question_update(
            question=question,
            text="Which?",
            privacy=PrivacyConfig("single_choice", options=many),
        )
    question.refresh_from_db()
    assert question.options == ["A", "B", "C"]
    updated = services.question_update(
        question=question,
        text="Which?",
        privacy=PrivacyConfig("single_choice", options=many[:-1]),
    )
    assert len(updated.options) == 255  # 257 + 255 = 512 options in all
