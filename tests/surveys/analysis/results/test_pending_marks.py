"""What arrived past a snapshot: counted for the survey alone, and capped."""

from __future__ import annotations

import pytest

from surveys.analysis.results import pending
from surveys.collection.models import Report
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db


def _last_report_id(survey) -> int:
    return Report.objects.filter(question__survey=survey).order_by("-id")[0].id


def _private_questions(survey) -> int:
    return survey.questions.filter(is_private=True).count()


def test_pending_counts_the_surveys_own_reports_and_submissions_past_the_watermark(
    ada, bob
):
    small, large = make_survey(ada), make_survey(bob, title="Large")
    simulate(small, 10)
    watermark = _last_report_id(small)
    simulate(small, 5, seed=2)
    simulate(large, 30, seed=3)  # later reports of another survey: not counted
    reports, submissions = pending.pending_after(
        survey_id=small.pk, watermark=watermark
    )
    assert submissions == 5
    assert reports == 5 * _private_questions(small)


def test_pending_submissions_stop_one_past_the_cap(ada, monkeypatch):
    survey = make_survey(ada)
    simulate(survey, 10)
    monkeypatch.setattr(pending, "PENDING_COUNT_CAP", 3)
    reports, submissions = pending.pending_after(survey_id=survey.pk, watermark=0)
    assert (reports, submissions) == (4, 4)


def test_test_mode_reports_are_not_pending(ada):
    survey = make_survey(ada)
    simulate(survey, 10)
    reports = Report.all_objects.filter(question__survey=survey)
    tested = sorted(set(reports.values_list("submission_id", flat=True)))[:3]
    reports.filter(submission_id__in=tested).update(is_test=True)
    reports_past, submissions = pending.pending_after(survey_id=survey.pk, watermark=0)
    assert submissions == 7
    assert reports_past == 7 * _private_questions(survey)
