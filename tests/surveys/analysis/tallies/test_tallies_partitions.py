"""Tallies stay exactly incremental when reports are spread over partitions:
ids come from one sequence for all partitions, so the watermark still orders
every survey's reports."""

from __future__ import annotations

import pytest

from surveys.analysis.results import selectors
from surveys.analysis.tallies import services
from surveys.collection.models import Report
from tests.surveys.analysis.conftest import (
    FAMILIES,
    direct_stats,
    make_survey,
    submit_bulk,
    tally_stats,
    untallied,
    window,
)
from tests.surveys.partition_plans import partition_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def surveys_apart(researcher):
    """Three surveys of every family, each in a partition of its own."""
    found: dict[str, object] = {}
    for _ in range(40):
        survey = make_survey(researcher, FAMILIES, plain=False)
        found.setdefault(partition_of(survey.pk), survey)
        if len(found) == 3:
            return list(found.values())
    raise AssertionError("40 surveys fell into fewer than three partitions")


def test_folding_reports_spread_over_partitions_equals_a_count_from_scratch(
    surveys_apart,
):
    with untallied():
        for round_number, (count, batch) in enumerate([(6, 5), (1, 2), (9, 4)]):
            for survey in surveys_apart:  # ids interleave across partitions
                submit_bulk(survey, count, seed=10 * round_number + survey.pk)
            for survey in surveys_apart[::2]:  # some surveys fold late
                services.tallies_refresh(survey_id=survey.pk, batch_size=window(batch))
        for survey in surveys_apart:
            services.tallies_refresh(survey_id=survey.pk, batch_size=window(7))

    for survey in surveys_apart:
        incremental = tally_stats(survey)
        assert incremental == direct_stats(survey)
        assert selectors.pending_report_count(survey_id=survey.pk) == 0
        mark = selectors.survey_watermark(survey_id=survey.pk)
        assert mark == Report.objects.order_by("-id").first().pk
        assert services.tallies_recount(survey_id=survey.pk) == 16 * len(FAMILIES)
        assert tally_stats(survey) == incremental
    assert len({partition_of(s.pk) for s in surveys_apart}) == 3


def test_a_refresh_of_one_partitions_survey_leaves_the_others_pending(
    surveys_apart,
):
    first, second, third = surveys_apart
    with untallied():
        for survey in surveys_apart:
            submit_bulk(survey, 3)
        services.tallies_refresh(survey_id=second.pk)

    assert selectors.surveys_with_pending_reports() == sorted([first.pk, third.pk])
    assert tally_stats(second) == direct_stats(second)
    assert selectors.pending_report_count(survey_id=first.pk) == 3 * len(FAMILIES)
