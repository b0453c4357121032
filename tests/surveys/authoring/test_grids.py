"""Grids of scale items: one stem, a row per item, each row its own protected
scale question; the answer page shows consecutive rows as one grid."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.authoring import definitions, services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question, Survey
from surveys.collection.forms import ResponseForm

pytestmark = pytest.mark.django_db

STEM = "How often have you done each of these in the past year?"
SCALE = ("Never", "Once or twice", "Sometimes", "Often")


def scale(epsilon: float = 1.0) -> PrivacyConfig:
    return PrivacyConfig(kind="ordinal", options=SCALE, epsilon=epsilon)


@pytest.fixture
def study(ada) -> Survey:
    return services.survey_create(owner=ada, title="Habits", epsilon_budget=10)


def test_a_grid_makes_one_protected_scale_question_per_item(study):
    rows = services.grid_create(
        survey=study, stem=STEM, items=["Cheated", "Lied", ""], privacy=scale()
    )
    assert [q.text for q in rows] == [f"{STEM} — Cheated", f"{STEM} — Lied"]
    stored = list(study.questions.order_by("position"))
    assert [q.grid_item for q in stored] == ["Cheated", "Lied"]
    assert all(q.grid == STEM and q.is_private and q.kind == "ordinal" for q in stored)
    assert all(q.compiled_mechanism().epsilon <= 1.0 for q in stored)
    assert {tuple(q.options) for q in stored} == {SCALE}


@pytest.mark.parametrize(
    ("stem", "items", "message"),
    [
        ("", ["A", "B"], "Give the grid a question"),
        ("x" * 201, ["A", "B"], "at most 200"),
        (STEM, ["Only one"], "1 items; a grid has 2 to 20"),
        (STEM, [f"Item {i}" for i in range(21)], "21 items"),
        (STEM, ["Same", "same"], "appears once"),
    ],
)
def test_a_bad_grid_is_refused_and_adds_nothing(study, stem, items, message):
    with pytest.raises(ValidationError, match=message):
        services.grid_create(survey=study, stem=stem, items=items, privacy=scale())
    assert not study.questions.exists()


def test_a_grid_row_with_a_bad_epsilon_adds_no_row_at_all(study):
    with pytest.raises(ValidationError):
        services.grid_create(
            survey=study, stem=STEM, items=["A", "B"], privacy=scale(epsilon=-1)
        )
    assert not study.questions.exists()


def test_the_answer_page_shows_consecutive_rows_as_one_grid(client, ada, study):
    services.question_create(
        survey=study,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    services.grid_create(
        survey=study, stem=STEM, items=["A", "B", "C"], privacy=scale()
    )
    survey = services.survey_publish(survey=study, user=ada)
    form = ResponseForm(survey=survey)
    blocks = form.sections()[0].blocks
    assert [b.in_grid for b in blocks] == [False, True, True, True]
    assert [b.grid_start for b in blocks] == [False, True, False, False]
    assert [b.grid_end for b in blocks] == [False, False, False, True]
    page = client.get(
        reverse("collection:respond", args=[survey.public_token])
    ).content.decode()
    assert page.count("data-grid") == 1
    assert page.count('class="question grid-row"') == 3
    assert '<p class="grid-stem" id="grid-' in page and STEM in page
    # Each row keeps its own fieldset, report and spec revision: the device
    # randomizes every row on its own.
    for question in survey.questions.filter(grid=STEM):
        assert f'id="question-{question.pk}"' in page
        assert f'name="q{question.pk}_report"' in page


def test_a_row_whose_scale_was_changed_is_shown_on_its_own(ada, study):
    rows = services.grid_create(
        survey=study, stem=STEM, items=["A", "B", "C"], privacy=scale()
    )
    Question.objects.filter(pk=rows[2].pk).update(options=["No", "Yes", "Maybe"])
    form = ResponseForm(survey=Survey.objects.get(pk=study.pk))
    assert [b.in_grid for b in form.sections()[0].blocks] == [True, True, False]


def test_grids_survive_definition_export_and_import(study, bob):
    services.grid_create(survey=study, stem=STEM, items=["A", "B"], privacy=scale())
    document = definitions.definition_document(study)
    assert [q["grid"] for q in document["questions"]] == [STEM, STEM]
    copy = definitions.definition_import(owner=bob, document=document)
    assert list(copy.questions.values_list("grid", flat=True)) == [STEM, STEM]


def test_a_duplicated_survey_keeps_its_grids(ada, study):
    services.grid_create(survey=study, stem=STEM, items=["A", "B"], privacy=scale())
    copy = services.survey_duplicate(survey=study, user=ada)
    assert list(copy.questions.values_list("grid", flat=True)) == [STEM, STEM]


def test_the_grid_page_adds_the_rows_and_refuses_bad_input(ada_client, study):
    url = reverse("authoring:grid_create", args=[study.pk])
    assert "Add a grid of scale items" in ada_client.get(url).content.decode()
    refused = ada_client.post(
        url,
        {
            "stem": STEM,
            "items": "Only one",
            "options": "\n".join(SCALE),
            "requested_epsilon": "1",
        },
    )
    assert refused.status_code == 200
    assert "a grid has 2 to 20" in refused.content.decode()
    assert not study.questions.exists()
    added = ada_client.post(
        url,
        {
            "stem": STEM,
            "items": "Cheated\nLied",
            "options": "\n".join(SCALE),
            "requested_epsilon": "1",
        },
    )
    assert added.status_code == 302
    assert study.questions.count() == 2
