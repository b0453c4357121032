"""The benchmarks' bulk loader writes rows the app itself accepts.

``benchmarks/bulk.py`` copies reports straight into the tables, past the
models; when a column is added to a submission or a report, this test fails
instead of the benchmarks breaking unnoticed.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.bulk import store_reports
from surveys.accounts.models import User
from surveys.analysis.models import Tally
from surveys.analysis.tallies import services as analysis
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import Report, Submission

COUNT = 40


@pytest.fixture
def survey():
    owner = User.objects.create_user("bulk-owner")
    survey = authoring.survey_create(owner=owner, title="bulk")
    privacy = PrivacyConfig(
        kind="single_choice", options=("A", "B", "C"), epsilon=1.0, mechanism="grr"
    )
    authoring.question_create(survey=survey, text="bulk", privacy=privacy)
    return authoring.survey_publish(survey=survey, user=owner)


@pytest.mark.django_db(transaction=True)
def test_bulk_loaded_reports_are_stored_in_their_survey_and_tallied(survey):
    store_reports(survey, COUNT, np.random.default_rng(7))

    assert Submission.objects.filter(survey=survey, is_test=False).count() == COUNT
    assert Report.objects.filter(survey=survey, is_test=False).count() == COUNT
    assert not Submission.objects.filter(survey=survey).exclude(language="").exists()
    analysis.tallies_refresh(survey_id=survey.pk)
    tally = Tally.objects.get(question__survey=survey)
    assert tally.n == COUNT
