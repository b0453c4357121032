"""Unprotected answers on the results page, in exports and the API."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from django.urls import reverse

from surveys.analysis.results import selectors
from surveys.analysis.tallies import snapshots
from surveys.authoring.models import Question
from surveys.collection.models import PlainAnswer
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(ada):
    survey = make_survey(ada)
    simulate(survey, 60)
    snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
    return survey


def _plain(survey):
    return survey.questions.get(is_private=False)


def test_the_snapshot_counts_each_option_of_an_unprotected_question(answered):
    question = _plain(answered)
    stored = Counter(
        PlainAnswer.objects.filter(question=question).values_list("value", flat=True)
    )
    results = selectors.latest_results(survey=answered).results
    (summary,) = results.plain
    assert summary.labels == ["First", "Second", "Third"]
    assert summary.counts == [stored[0], stored[1], stored[2]]
    assert summary.n == 60
    assert sum(summary.shares()) == pytest.approx(1.0)


def test_the_results_page_shows_counts_and_shares_of_unprotected_answers(
    ada_client, answered
):
    summary = selectors.latest_results(survey=answered).results.plain[0]
    html = ada_client.get(reverse("analysis:dashboard", args=[answered.pk])).content
    html = html.decode()
    share = f"{summary.counts[0] / 60 * 100:.1f}%"
    assert (
        f'<th scope="row">First</th><td>{summary.counts[0]}</td><td>{share}</td>'
        in (html)
    )
    assert "60 answered" in html


def test_the_estimates_export_and_the_api_carry_the_counts(ada_client, answered):
    response = ada_client.get(
        reverse("analysis:export_estimates_json", args=[answered.pk])
    )
    (item,) = response.json()["not_protected"]
    assert item["labels"] == ["First", "Second", "Third"]
    assert sum(item["counts"]) == 60


def test_a_number_is_summarised_by_mean_median_and_range(ada):
    survey = make_survey(ada, title="Ages")
    question = Question.objects.create(
        survey=survey,
        position=99,
        kind="numeric",
        text="Age?",
        is_private=False,
        not_private_acknowledged=True,
        numeric_low=Decimal(16),
        numeric_high=Decimal(99),
        numeric_step=Decimal(1),
    )
    summary = selectors.plain_summary(question, [("20", 2), ("30", 1), ("61", 1)])
    assert (summary.n, summary.mean, summary.median) == (4, 32.75, 25.0)
    assert (summary.lowest, summary.highest) == (20.0, 61.0)


def test_a_multi_select_counts_every_ticked_option(ada):
    survey = make_survey(ada, title="Apps")
    question = Question.objects.create(
        survey=survey,
        position=99,
        kind="multi_select",
        text="Apps?",
        is_private=False,
        not_private_acknowledged=True,
        options=["A", "B", "C"],
    )
    summary = selectors.plain_summary(question, [([0, 2], 3), ([2], 1), ([], 1)])
    assert summary.n == 5
    assert summary.counts == [3, 0, 4]


def test_answers_of_submissions_past_the_snapshot_are_not_counted(answered, settings):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    before = selectors.latest_results(survey=answered).results.plain[0]
    simulate(answered, 3, seed=9)  # fewer than a batch: the snapshot stays
    snapshots.snapshot_refresh(survey_id=answered.pk)
    after = selectors.latest_results(survey=answered).results.plain[0]
    assert after.counts == before.counts


def test_a_withdrawal_keeps_the_unprotected_summary_in_the_snapshot(answered):
    snapshots.snapshot_after_withdrawal(survey_id=answered.pk)
    (summary,) = selectors.latest_results(survey=answered).results.plain
    assert summary.n == 60


def test_a_survey_without_answers_says_none_yet(ada_client, ada):
    survey = make_survey(ada, title="Empty")
    snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
    html = ada_client.get(reverse("analysis:dashboard", args=[survey.pk])).content
    assert "0 answered" in html.decode()
