"""A number protected by Duchi et al.'s mechanism: the mean, and no bins.

Its one-bit reports identify the mean answer and nothing else about the
answers' spread (docs/maths.md, section 11.1): the results card, the bins
page and the builder's description say so and name the mechanisms that
support bins.
"""

from __future__ import annotations

import dataclasses
import html
from decimal import Decimal

import pytest
from django.urls import reverse

from surveys.analysis.models import QuestionBins
from surveys.analysis.reading import latest_results
from surveys.analysis.tallies.services import tallies_refresh
from surveys.authoring import services as authoring
from surveys.authoring.catalogue import (
    describe_mechanism,
    identifies_only_the_mean,
    mean_only_reason,
)
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.previews import preview
from tests.surveys.analysis.conftest import submit_bulk

pytestmark = pytest.mark.django_db

HOURS = PrivacyConfig(
    kind="numeric", epsilon=1.0, low=Decimal(0), high=Decimal(40), step=Decimal(1)
)


@pytest.fixture
def hours(ada):
    """A published survey whose one question is hours 0–40 at ε = 1, with the
    builder's default mechanism, and 300 responses."""
    survey = authoring.survey_create(owner=ada, title="Study time", epsilon_budget=2.0)
    authoring.question_create(
        survey=survey, text="Hours of study last week?", privacy=HOURS
    )
    survey = authoring.survey_publish(survey=survey, user=ada)
    submit_bulk(survey, 300)
    tallies_refresh(survey_id=survey.pk)
    assert latest_results(survey) is not None
    return survey


def test_duchi_is_the_default_mechanism_for_hours_at_epsilon_one(hours):
    question = hours.questions.get()
    assert question.spec["mechanism"] == "duchi"
    assert identifies_only_the_mean("duchi")
    assert not any(
        identifies_only_the_mean(name) for name in ("geometric", "piecewise")
    )


def test_the_card_shows_the_mean_and_says_why_there_are_no_bins(ada_client, hours):
    response = ada_client.get(reverse("analysis:dashboard", args=[hours.pk]))
    page = html.unescape(response.content.decode())
    assert 'data-field="mean"' in page
    assert 'data-field="mean-only"' in page
    reason, alternative = mean_only_reason("duchi")
    assert reason in page
    assert alternative in page
    # Neither a distribution nor an empty table of per-value estimates.
    assert 'data-table="bins"' not in page
    assert 'data-field="median"' not in page
    assert '<th scope="col">Consistent</th>' not in page
    assert 'data-field="bins-link"' not in page


def test_the_bins_page_refuses_with_the_reason_and_stores_nothing(ada_client, hours):
    question = hours.questions.get()
    url = reverse("analysis:question_bins", args=[hours.pk, question.pk])
    page = ada_client.get(url)
    assert page.status_code == 200
    assert "depends on the mean answer alone" in page.content.decode()
    assert 'id="bins-form"' not in page.content.decode()
    refused = ada_client.post(url, {"cuts": "10, 20"})
    assert refused.status_code == 400
    assert "discrete Laplace" in refused.content.decode()
    assert not QuestionBins.objects.exists()


def test_the_builder_says_duchi_gives_the_mean_only_and_what_gives_bins(hours):
    mechanism = hours.questions.get().compiled_mechanism()
    words = describe_mechanism(mechanism)
    assert "the results estimate the mean only" in words
    assert "no median and no distribution in bins" in words
    assert "discrete Laplace (geometric) or the piecewise mechanism" in words
    assert preview(HOURS, n=500).plain_words == words


def test_a_number_under_discrete_laplace_keeps_its_bins_and_no_such_note(ada):
    survey = authoring.survey_create(owner=ada, title="Study time", epsilon_budget=2.0)
    config = dataclasses.replace(HOURS, mechanism="geometric")
    authoring.question_create(survey=survey, text="Hours?", privacy=config)
    survey = authoring.survey_publish(survey=survey, user=ada)
    submit_bulk(survey, 300)
    tallies_refresh(survey_id=survey.pk)
    (result,) = latest_results(survey).questions
    assert result.mechanism == "geometric"
    assert result.distribution is not None
    assert not identifies_only_the_mean(result.mechanism)
