"""Item non-response: skips of optional questions, in the snapshot and the dashboard."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from django.urls import reverse

import ldp
from surveys.analysis.results import selectors
from surveys.analysis.tallies import answers, services, snapshots
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk

pytestmark = pytest.mark.django_db


@pytest.fixture
def optional_survey(ada) -> Survey:
    survey = authoring.survey_create(owner=ada, title="Optional")
    authoring.question_create(
        survey=survey, text="Required?", privacy=PrivacyConfig(kind="yes_no")
    )
    authoring.question_create(
        survey=survey,
        text="Optional?",
        privacy=PrivacyConfig(kind="yes_no"),
        optional=True,
    )
    authoring.question_create(
        survey=survey,
        text="Age band?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("Young", "Old")
        ),
        not_private_acknowledged=True,
        optional=True,
    )
    return authoring.survey_publish(survey=survey, user=ada)


def submit(survey: Survey, *, answered: int, skipped: int) -> None:
    """``answered`` responses to every question, then ``skipped`` that skip both
    optional questions."""
    required, optional, plain = survey.questions.all()
    rng = np.random.default_rng(3)
    reports = {}
    for q in (required, optional):
        mechanism = ldp.build(q.spec)
        reports[q.pk] = [mechanism.randomize(np.array([1]), rng).tolist()[0]]

    def one(skip: bool) -> ResponseIn:
        return ResponseIn(
            idempotency_key=uuid.uuid4(),
            survey_revision=survey.revision,
            reports={
                pk: SentReport(1, payload[0])
                for pk, payload in reports.items()
                if not (skip and pk == optional.pk)
            },
            plain_answers={} if skip else {plain.pk: 0},
            skipped=frozenset({optional.pk, plain.pk}) if skip else frozenset(),
        )

    responses = [one(False) for _ in range(answered)]
    responses += [one(True) for _ in range(skipped)]
    submissions_ingest_bulk(survey=survey, responses=responses)


def snapshot(survey: Survey):
    services.tallies_refresh(survey_id=survey.pk)
    snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
    return selectors.latest_results(survey=survey).results


def test_each_question_is_estimated_from_its_own_reports(optional_survey):
    submit(optional_survey, answered=6, skipped=4)
    results = snapshot(optional_survey)
    n = {r.text: r.n for r in results.questions}
    assert n == {"Required?": 10, "Optional?": 6}


def test_the_snapshot_counts_the_skips_of_every_optional_question(optional_survey):
    submit(optional_survey, answered=6, skipped=4)
    _, optional, plain = optional_survey.questions.all()
    assert snapshot(optional_survey).skips() == {optional.pk: 4, plain.pk: 4}


def test_skips_arriving_after_the_tallies_wait_for_the_next_snapshot(
    optional_survey,
):
    submit(optional_survey, answered=2, skipped=1)
    first = snapshot(optional_survey)
    bound = selectors.latest_snapshot(survey_id=optional_survey.pk).last_submission_id
    submit(optional_survey, answered=0, skipped=3)
    _, optional, _ = optional_survey.questions.all()
    assert first.skips()[optional.pk] == 1
    assert (
        answers.counts_up_to(
            survey_id=optional_survey.pk, last_submission_id=bound
        ).skips()[optional.pk]
        == 1
    )
    assert snapshot(optional_survey).skips()[optional.pk] == 4


def test_a_required_question_has_no_item_non_response_entry(optional_survey):
    submit(optional_survey, answered=3, skipped=0)
    required, _, _ = optional_survey.questions.all()
    assert required.pk not in snapshot(optional_survey).skips()


def test_the_dashboard_shows_skips_and_their_share(optional_survey, ada_client):
    submit(optional_survey, answered=6, skipped=4)
    snapshot(optional_survey)
    html = ada_client.get(
        reverse("analysis:dashboard", args=[optional_survey.pk])
    ).content.decode()
    assert 'data-field="skipped">4 (40.0% of 10)</dd>' in html
    assert '6 answered; skipped: <span data-field="skipped">4 (40.0% of 10)</span>' in (
        html
    )
    assert html.count('data-field="skipped"') == 2  # not on the required question
