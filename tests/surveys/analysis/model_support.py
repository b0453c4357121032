"""A published survey for regression and weighting, and realistic respondents.

Region, age and employment are asked in the clear; whether one cheated (yes/no,
forced response) and weekly study hours (a number, Duchi et al.) are
protected.  True answers depend on region and age; every protected report is
produced by the reference randomizer ``ldp.build(spec)`` and stored through
the bulk ingest the dashboard tests use.  About 5% skip the (optional) age.
"""

from __future__ import annotations

import uuid
from decimal import Decimal

import numpy as np

import ldp
from surveys.analysis.tallies.services import tallies_refresh
from surveys.analysis.tallies.snapshots import snapshot_refresh
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk

REGIONS = ("North", "South", "East")
REGION_SHARES = (0.5, 0.3, 0.2)  # the sample's; the population is even
CHEATED = "Have you ever cheated on an exam?"
HOURS = "Hours of study last week"
REGION = "Your region"
AGE = "Your age"
EMPLOYED = "Do you have a paid job?"


def make_model_survey(owner, title: str = "Study habits") -> Survey:
    """Create and publish the survey (two protected, three unprotected)."""
    survey = authoring.survey_create(owner=owner, title=title, epsilon_budget=6)
    authoring.question_create(
        survey=survey,
        text=CHEATED,
        privacy=PrivacyConfig(kind="yes_no", epsilon=2.0, mechanism="forced_response"),
    )
    authoring.question_create(
        survey=survey,
        text=HOURS,
        privacy=PrivacyConfig(
            kind="numeric",
            epsilon=2.0,
            mechanism="duchi",
            low=Decimal(0),
            high=Decimal(20),
            step=Decimal(1),
        ),
    )
    for text, config, optional in (
        (REGION, PrivacyConfig("single_choice", is_private=False, options=REGIONS), 0),
        (
            AGE,
            PrivacyConfig(
                "numeric",
                is_private=False,
                low=Decimal(18),
                high=Decimal(80),
                step=Decimal(1),
            ),
            1,
        ),
        (EMPLOYED, PrivacyConfig("yes_no", is_private=False), 0),
    ):
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=config,
            not_private_acknowledged=True,
            optional=bool(optional),
        )
    return authoring.survey_publish(survey=survey, user=owner)


def questions(survey: Survey) -> dict[str, object]:
    return {q.text: q for q in survey.questions.all()}


def seed_respondents(survey: Survey, count: int, seed: int = 1) -> int:
    """Store ``count`` respondents and bring tallies and snapshot up to date."""
    rng = np.random.default_rng(seed)
    q = questions(survey)
    region = rng.choice(3, size=count, p=REGION_SHARES)
    age = rng.integers(18, 71, size=count)
    employed = (rng.random(count) < 0.6).astype(int)
    skips_age = rng.random(count) < 0.05
    south, east = (region == 1).astype(float), (region == 2).astype(float)
    eta = -1.0 + 0.9 * south - 0.6 * east + 0.03 * (age - 40)
    cheated = (rng.random(count) < 1 / (1 + np.exp(-eta))).astype(int)
    mean_hours = 8 + 3 * south - 2 * east - 0.05 * (age - 40)
    hours = np.clip(np.round(mean_hours + rng.normal(0, 2, count)), 0, 20).astype(int)
    cheat_q, hours_q = q[CHEATED], q[HOURS]
    cheat_reports = ldp.build(cheat_q.spec).randomize(cheated, rng).tolist()
    hours_reports = ldp.build(hours_q.spec).randomize(hours, rng).tolist()
    responses = []
    for i in range(count):
        plain = {q[REGION].pk: int(region[i]), q[EMPLOYED].pk: int(employed[i])}
        if not skips_age[i]:
            plain[q[AGE].pk] = int(age[i])
        responses.append(
            ResponseIn(
                idempotency_key=uuid.UUID(bytes=rng.bytes(16), version=4),
                survey_revision=survey.revision,
                reports={
                    cheat_q.pk: SentReport(cheat_q.spec_revision, cheat_reports[i]),
                    hours_q.pk: SentReport(hours_q.spec_revision, hours_reports[i]),
                },
                plain_answers=plain,
                skipped=frozenset({q[AGE].pk}) if skips_age[i] else frozenset(),
            )
        )
    stored = submissions_ingest_bulk(survey=survey, responses=responses)
    tallies_refresh(survey_id=survey.pk)
    snapshot_refresh(survey_id=survey.pk, force=True)
    return stored
