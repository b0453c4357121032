"""Incremental tallies: equal to a recount, idempotent, monotone, order-safe."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from surveys.analysis.models import Tally
from surveys.analysis.results import selectors
from surveys.analysis.tallies import services
from surveys.collection.models import Report
from tests.surveys.analysis.conftest import (
    FAMILIES,
    direct_stats,
    make_survey,
    submit_bulk,
    tally_stats,
    window,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def family_survey(shared_family_survey):
    """The module's survey of every family, made once; each test adds its
    reports inside its own transaction (rolled back)."""
    return shared_family_survey


def watermark(survey) -> int:
    return selectors.survey_watermark(survey_id=survey.pk)


@pytest.mark.slow  # many randomized batches and interleavings
def test_incremental_equals_recount_after_many_batches_and_interleavings(
    family_survey,
):
    for round_number, (count, batch) in enumerate([(40, 7), (1, 3), (55, 50), (9, 1)]):
        submit_bulk(family_survey, count, seed=round_number)
        services.tallies_refresh(survey_id=family_survey.pk, batch_size=batch)
        submit_bulk(family_survey, 3, seed=100 + round_number)  # left for later
    services.tallies_refresh(survey_id=family_survey.pk, batch_size=13)
    incremental = tally_stats(family_survey)
    mark = watermark(family_survey)

    assert incremental == direct_stats(family_survey)
    services.tallies_recount(survey_id=family_survey.pk, batch_size=17)
    assert tally_stats(family_survey) == incremental
    assert watermark(family_survey) == mark
    assert Tally.objects.filter(question__survey=family_survey).count() == len(FAMILIES)


def test_refresh_run_twice_gives_the_same_tallies(family_survey):
    submit_bulk(family_survey, 30)
    first = services.tallies_refresh(survey_id=family_survey.pk, batch_size=window(11))
    before = tally_stats(family_survey)
    second = services.tallies_refresh(survey_id=family_survey.pk, batch_size=window(11))

    assert first.folded == 30 * len(FAMILIES)
    assert second.folded == 0
    assert second.watermark == first.watermark
    assert tally_stats(family_survey) == before


def test_watermark_never_moves_back_across_refreshes_and_recounts(family_survey):
    marks = []
    for seed in range(4):
        submit_bulk(family_survey, 5, seed=seed)
        services.tallies_refresh(survey_id=family_survey.pk, batch_size=window(2))
        marks.append(watermark(family_survey))
        services.tallies_recount(survey_id=family_survey.pk)
        marks.append(watermark(family_survey))
        services.tallies_refresh(survey_id=family_survey.pk)  # a late, stale run
        marks.append(watermark(family_survey))

    assert marks == sorted(marks)
    assert marks[-1] == Report.objects.order_by("-id").first().pk


def test_recount_command_equals_incremental_result(family_survey, researcher):
    other = make_survey(researcher, FAMILIES[:3], plain=False)
    submit_bulk(family_survey, 25)
    submit_bulk(other, 10)
    services.tallies_refresh(survey_id=family_survey.pk, batch_size=window(6))
    services.tallies_refresh(survey_id=other.pk, batch_size=window(6, FAMILIES[:3]))
    incremental = tally_stats(family_survey), tally_stats(other)

    call_command("recount_tallies", "--survey", str(family_survey.pk))
    call_command("recount_tallies")

    assert (tally_stats(family_survey), tally_stats(other)) == incremental


def test_reports_of_other_surveys_are_not_counted(family_survey, researcher):
    other = make_survey(researcher, FAMILIES[:2], plain=False)
    submit_bulk(other, 12)
    submit_bulk(family_survey, 4)
    services.tallies_refresh(survey_id=family_survey.pk)

    assert {n for (_, _), n in _ns(family_survey).items()} == {4}
    assert selectors.pending_report_count(survey_id=other.pk) == 12 * 2
    assert selectors.surveys_with_pending_reports() == [other.pk]


def _ns(survey) -> dict:
    return {key: stat["n"] for key, stat in tally_stats(survey).items()}


def test_refresh_of_a_deleted_survey_does_nothing():
    outcome = services.tallies_refresh(survey_id=999_999)

    assert (outcome.folded, outcome.watermark) == (0, 0)
