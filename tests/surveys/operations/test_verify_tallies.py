"""manage.py verify_tallies: the upgrade check compares tallies with a recount
and changes nothing."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from surveys.analysis.models import Tally
from surveys.analysis.results import selectors
from surveys.analysis.tallies import services
from tests.surveys.analysis.conftest import (
    FAMILIES,
    make_survey,
    submit_bulk,
    tally_stats,
    window,
)

pytestmark = pytest.mark.django_db


def verify(*args: str) -> str:
    out = StringIO()
    call_command("verify_tallies", *args, stdout=out)
    return out.getvalue()


def test_tallies_kept_incrementally_verify(researcher):
    survey = make_survey(researcher)
    submit_bulk(survey, 30)
    services.tallies_refresh(survey_id=survey.pk, batch_size=window(7))
    submit_bulk(survey, 5, seed=2)  # not tallied yet: folded in by the check

    output = verify()

    reports = 35 * len(FAMILIES)
    assert output == (
        f"survey {survey.pk}: tallies equal a recount of {reports} reports\n"
    )


def test_a_tally_that_differs_from_its_reports_fails_and_is_left_as_it_was(
    researcher,
):
    survey = make_survey(researcher, FAMILIES[:2], plain=False)
    other = make_survey(researcher, FAMILIES[2:3], plain=False)
    submit_bulk(survey, 20)
    submit_bulk(other, 4)
    services.tallies_refresh(survey_id=survey.pk)
    services.tallies_refresh(survey_id=other.pk)
    tally = Tally.objects.filter(question__survey=survey).first()
    tally.stat["counts"][0] += 1
    tally.save()
    tampered = tally_stats(survey)
    out = StringIO()

    with pytest.raises(
        CommandError, match=rf"1 survey\(s\) not verified: {survey.pk}\."
    ):
        call_command("verify_tallies", stdout=out)

    assert f"survey {survey.pk}: tallies differ from a recount of 40 reports" in (
        out.getvalue()
    )
    assert f"question {tally.question_id} revision 1: stored n=20" in out.getvalue()
    assert f"survey {other.pk}: tallies equal a recount of 4 reports" in out.getvalue()
    assert tally_stats(survey) == tampered


def test_the_check_leaves_untallied_reports_and_the_watermark_alone(researcher):
    survey = make_survey(researcher, FAMILIES[:3], plain=False)
    submit_bulk(survey, 10)
    services.tallies_refresh(survey_id=survey.pk)
    mark = selectors.survey_watermark(survey_id=survey.pk)
    before = tally_stats(survey)
    submit_bulk(survey, 6, seed=3)

    verify("--survey", str(survey.pk))

    assert selectors.survey_watermark(survey_id=survey.pk) == mark
    assert selectors.pending_report_count(survey_id=survey.pk) == 6 * 3
    assert tally_stats(survey) == before


def test_an_unknown_survey_is_refused():
    with pytest.raises(CommandError, match="survey 999999 does not exist"):
        verify("--survey", "999999")
