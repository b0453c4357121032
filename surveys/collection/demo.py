"""A demo survey and simulated respondents, for development and browser tests.

Simulated respondents are randomized by the Python reference mechanism with a
seeded numpy Generator, turned into the JSON report form the browser sends,
and stored through the same ingestion service as real responses.
"""

from __future__ import annotations

import math
import uuid

import numpy as np
from django.db import transaction

import ldp
from surveys.accounts.models import User
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import YES_NO_OPTIONS, PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.services import ResponseIn, SentReport, submissions_ingest_bulk

DEMO_USERNAME = "demo"
# Development only (seed_demo refuses to run in production): a fixed, documented
# password so that every run prints the same login.
DEMO_PASSWORD = "deniable-demo-only"  # noqa: S105
DEMO_TITLE = "Demo: habits and honesty"
DEMO_SEED = 20_261_122

# (text, config, true shares of each answer value) for the simulation.
INCOME_OPTIONS = (
    "Under 25,000",
    "25,000 to 49,999",
    "50,000 to 99,999",
    "100,000 or more",
)
HEARD_OPTIONS = ("A friend", "Social media", "My workplace", "Somewhere else")
DEMO_QUESTIONS: list[tuple[str, PrivacyConfig, tuple[float, ...]]] = [
    (
        "Have you used a recreational drug in the past 12 months?",
        PrivacyConfig(
            kind="yes_no",
            options=YES_NO_OPTIONS,
            epsilon=math.log(3),
            mechanism="forced_response",
        ),
        (0.7, 0.3),  # P(No), P(Yes)
    ),
    (
        "Have you ever cheated on an exam?",
        PrivacyConfig(
            kind="yes_no", options=YES_NO_OPTIONS, epsilon=1.0, mechanism="warner"
        ),
        (0.8, 0.2),
    ),
    (
        "What is your household's yearly income?",
        PrivacyConfig(
            kind="single_choice",
            options=INCOME_OPTIONS,
            epsilon=1.5,
            mechanism="grr",
        ),
        (0.3, 0.35, 0.25, 0.1),
    ),
    (
        "How did you hear about this survey?",
        PrivacyConfig(kind="single_choice", is_private=False, options=HEARD_OPTIONS),
        (0.4, 0.3, 0.2, 0.1),
    ),
]


def demo_researcher() -> tuple[User, bool]:
    """The demo account, created with the documented development password."""
    user = User.objects.filter(username=DEMO_USERNAME).first()
    if user is not None:
        return user, False
    user = User(username=DEMO_USERNAME, email="demo@example.org")
    user.set_password(DEMO_PASSWORD)
    user.save()
    return user, True


@transaction.atomic
def demo_survey(*, owner: User) -> tuple[Survey, bool]:
    """The owner's demo survey, created and published if it does not exist."""
    survey = Survey.objects.filter(owner=owner, title=DEMO_TITLE).first()
    if survey is not None:
        return survey, False
    survey = authoring.survey_create(
        owner=owner,
        title=DEMO_TITLE,
        description=(
            "A short demonstration survey. Three of its four questions are "
            "protected: your device randomizes those answers before sending them."
        ),
        consent_text=(
            "Taking part is voluntary and anonymous. You can stop at any time "
            "before pressing “Send”; nothing is sent before that."
        ),
        epsilon_budget=4.0,
        planned_respondents=500,
    )
    for text, config, _ in DEMO_QUESTIONS:
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=config,
            not_private_acknowledged=not config.is_private,
        )
    survey = authoring.survey_publish(survey=survey, user=owner)
    return survey, True


def simulate_respondents(*, survey: Survey, count: int, seed: int = DEMO_SEED) -> int:
    """Store ``count`` simulated public-link responses; returns how many."""
    if count <= 0:
        return 0
    rng = np.random.default_rng(seed)
    shares = {text: share for text, _, share in DEMO_QUESTIONS}
    columns: dict[int, list] = {}
    private: dict[int, int] = {}  # question id -> spec revision
    for question in survey.questions.all():
        share = shares.get(question.text)
        if share is None:
            raise ValueError(f"question {question.text!r} is not a demo question")
        truth = rng.choice(len(share), size=count, p=np.asarray(share))
        if question.is_private:
            mechanism = ldp.build(question.spec)
            columns[question.pk] = mechanism.randomize(truth, rng).tolist()
            private[question.pk] = question.spec_revision
        else:
            columns[question.pk] = truth.tolist()
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
    return submissions_ingest_bulk(survey=survey, responses=responses)
