"""Shared set-up for the dashboard, export and API tests.

A survey with one question of every kind, built and published through the
authoring services, answered by simulated respondents randomized by the Python
reference and stored through the collection's bulk ingest (the same checks as
real submissions); then tallied and released by the analysis services, as the
tasks a real submission announces would (tests run no commit hooks).
"""

from __future__ import annotations

import math
import uuid
from decimal import Decimal

import numpy as np

import ldp
from surveys.analysis.tallies.services import tallies_refresh
from surveys.analysis.tallies.snapshots import snapshot_refresh
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import YES_NO_OPTIONS, PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk
from tests.surveys.stored_reports import payloads

PASSWORD = "correct horse battery staple"
SEED = 20261122

QUESTIONS: list[tuple[str, PrivacyConfig]] = [
    (
        "Have you used a recreational drug in the past year?",
        PrivacyConfig(
            kind="yes_no",
            options=YES_NO_OPTIONS,
            epsilon=math.log(3),
            mechanism="forced_response",
        ),
    ),
    (
        "Have you ever cheated on an exam?",
        PrivacyConfig(
            kind="yes_no", options=YES_NO_OPTIONS, epsilon=1.0, mechanism="warner"
        ),
    ),
    (
        '=HYPERLINK("http://evil.example") Which income bracket?',
        PrivacyConfig(
            kind="single_choice",
            options=("Low", "Middle", "High", "-Very high"),
            epsilon=1.5,
            mechanism="grr",
        ),
    ),
    (
        "Which app do you use most?",
        PrivacyConfig(
            kind="single_choice",
            options=tuple(f"App {i}" for i in range(8)),
            epsilon=1.0,
            mechanism="oue",
        ),
    ),
    (
        "How stressed are you?",
        PrivacyConfig(
            kind="ordinal",
            options=("Not at all", "A little", "Somewhat", "Very", "Extremely"),
            epsilon=2.0,
            mechanism="ordinal",
        ),
    ),
    (
        "How many drinks last week?",
        PrivacyConfig(
            kind="numeric",
            epsilon=2.0,
            mechanism="geometric",
            low=Decimal(0),
            high=Decimal(10),
            step=Decimal(1),
        ),
    ),
    (
        "Which of these have you done?",
        PrivacyConfig(
            kind="multi_select",
            options=("Skipped class", "Copied homework", "Used notes"),
            epsilon=1.0,
        ),
    ),
    (
        "Which year are you in?",
        PrivacyConfig(
            kind="single_choice",
            is_private=False,
            options=("First", "Second", "Third"),
        ),
    ),
]


def make_survey(
    owner, *, title: str = "Student life", languages: tuple[str, ...] = ()
) -> Survey:
    """One question of each kind, offered in ``languages`` too (each text
    translated as "[code] source"), published."""
    survey = authoring.survey_create(
        owner=owner, title=title, epsilon_budget=20.0, planned_respondents=500
    )
    for text, config in QUESTIONS:
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=config,
            not_private_acknowledged=not config.is_private,
        )
    if languages:
        from tests.surveys.collection.conftest import offered_in

        offered_in(survey, *languages)
    return authoring.survey_publish(survey=survey, user=owner)


def _truth(question, k: int, count: int, rng) -> list:
    if question.kind == "multi_select":
        return [
            sorted(int(v) for v in np.nonzero(rng.random(k) < 0.4)[0])
            for _ in range(count)
        ]
    shares = np.arange(k, 0, -1, dtype=float)
    return rng.choice(k, size=count, p=shares / shares.sum()).tolist()


def simulate(survey: Survey, count: int, seed: int = SEED) -> int:
    """Store ``count`` simulated responses to every question; returns how many."""
    rng = np.random.default_rng(seed)
    columns: dict[int, list] = {}
    private: dict[int, int] = {}
    for question in survey.questions.all():
        if question.is_private:
            mechanism = ldp.build(question.spec)
            truth = _truth(question, mechanism.k, count, rng)
            columns[question.pk] = mechanism.randomize(truth, rng).tolist()
            private[question.pk] = question.spec_revision
        else:
            columns[question.pk] = _truth(question, len(question.options), count, rng)
    responses = [
        ResponseIn(
            idempotency_key=uuid.UUID(bytes=rng.bytes(16), version=4),
            survey_revision=survey.revision,
            reports={
                pk: SentReport(spec_revision=private[pk], payload=values[i])
                for pk, values in columns.items()
                if pk in private
            },
            plain_answers={
                pk: values[i] for pk, values in columns.items() if pk not in private
            },
        )
        for i in range(count)
    ]
    stored = submissions_ingest_bulk(survey=survey, responses=responses)
    tallies_refresh(survey_id=survey.pk)
    snapshot_refresh(survey_id=survey.pk)  # the release rule decides
    return stored


def reference_estimates(survey: Survey) -> dict[int, object]:
    """Each private question's ldp estimate, from its stored reports directly."""
    found = {}
    for question in survey.questions.filter(is_private=True):
        mechanism = ldp.build(question.spec)
        reports = payloads(
            question.reports.filter(spec_revision=question.spec_revision).order_by("id")
        )
        found[question.pk] = mechanism.estimate(mechanism.aggregate(reports))
    return found
