"""A demo survey and simulated respondents, for development and browser tests.

Simulated respondents are randomized by the Python reference mechanism with a
seeded numpy Generator, turned into the JSON report form the browser sends,
and stored through the same ingestion service as real responses.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np
from django.db import transaction

from ldp.mechanisms import registry
from ldp.mechanisms.about import MEAN
from surveys.accounts.models import User
from surveys.authoring import services as authoring
from surveys.authoring.kinds import facts
from surveys.authoring.mechanisms import YES_NO_OPTIONS, PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk

DEMO_USERNAME = "demo"
# Development only (seed_demo refuses to run in production): a fixed, documented
# password so that every run prints the same login.
DEMO_PASSWORD = "deniable-demo-only"  # noqa: S105
DEMO_TITLE = "Demo: habits and honesty"
DEMO_SEED = 20_261_122

# (text, config, how the simulation draws true answers) for every demo question.
INCOME_OPTIONS = (
    "Under 25,000",
    "25,000 to 49,999",
    "50,000 to 99,999",
    "100,000 or more",
)
LIKERT_OPTIONS = (
    "Strongly disagree",
    "Disagree",
    "Neither agree nor disagree",
    "Agree",
    "Strongly agree",
)
APP_OPTIONS = (
    "Dating apps",
    "Gambling or betting",
    "Anonymous forums",
    "Cryptocurrency trading",
    "Health or fertility tracking",
    "Private browsing or VPN",
)
AGE_OPTIONS = ("18 to 29", "30 to 44", "45 to 64", "65 or older")
HOURS = (Decimal(0), Decimal(40), Decimal(1))

Sampler = Callable[[np.random.Generator, int], list]


def _shares(*shares: float) -> Sampler:
    """Answer indices drawn with these probabilities."""

    def draw(rng: np.random.Generator, count: int) -> list:
        return rng.choice(len(shares), size=count, p=np.asarray(shares)).tolist()

    return draw


def _hours(rng: np.random.Generator, count: int) -> list:
    """Hours per week as grid levels: many near 0, a bump around 10 to 20."""
    low, high, step = HOURS
    top = int((high - low) / step)
    light = rng.random(count) < 0.3
    hours = np.where(light, rng.exponential(1.5, count), rng.normal(14, 7, count))
    return np.clip(np.rint(hours), 0, top).astype(int).tolist()


def _apps(rng: np.random.Generator, count: int) -> list:
    """At most two apps each (none is allowed), the popular ones more often."""
    popularity = np.asarray([0.3, 0.1, 0.15, 0.1, 0.15, 0.2])
    chosen = []
    for n in rng.choice(3, size=count, p=[0.25, 0.45, 0.3]):
        picks = rng.choice(6, size=int(n), replace=False, p=popularity)
        chosen.append(sorted(int(i) for i in picks))
    return chosen


def _offered(kind: str, **wanted: Any) -> str:
    """The first mechanism the builder offers for ``kind`` whose declarations
    have the wanted values: the demo shows each kind's distinct methods."""
    for family in registry.for_kind(kind):
        if all(getattr(family, name) == value for name, value in wanted.items()):
            return family.name
    raise LookupError(f"no mechanism for {kind} with {wanted}")


DEMO_QUESTIONS: list[tuple[str, PrivacyConfig, Sampler]] = [
    (
        "Have you used a recreational drug in the past 12 months?",
        PrivacyConfig(
            kind="yes_no",
            options=YES_NO_OPTIONS,
            epsilon=math.log(3),
            mechanism=_offered("yes_no", takes_design=True),
        ),
        _shares(0.7, 0.3),  # P(No), P(Yes)
    ),
    (
        "Have you ever cheated on an exam?",
        PrivacyConfig(
            kind="yes_no",
            options=YES_NO_OPTIONS,
            epsilon=1.0,
            mechanism=_offered("yes_no", takes_design=False),
        ),
        _shares(0.8, 0.2),
    ),
    (
        "What is your household's yearly income?",
        PrivacyConfig(
            kind="single_choice",
            options=INCOME_OPTIONS,
            epsilon=1.5,
            mechanism=_offered("single_choice"),
        ),
        _shares(0.3, 0.35, 0.25, 0.1),
    ),
    (
        "“I have taken something from my workplace without permission.”",
        PrivacyConfig(
            kind="ordinal",
            options=LIKERT_OPTIONS,
            epsilon=1.0,
            mechanism=_offered("ordinal", headline=MEAN),
        ),
        _shares(0.35, 0.25, 0.15, 0.15, 0.1),
    ),
    (
        "In a typical week, how many hours do you spend gambling or betting?",
        PrivacyConfig(
            kind="numeric",
            low=HOURS[0],
            high=HOURS[1],
            step=HOURS[2],
            epsilon=1.0,
            mechanism=_offered("numeric", mean_only=False),
        ),
        _hours,
    ),
    (
        "Which of these have you used in the past month?",
        PrivacyConfig(
            kind="multi_select",
            options=APP_OPTIONS,
            epsilon=1.0,
            mechanism=_offered("multi_select"),
            max_selections=2,
        ),
        _apps,
    ),
    (
        "What is your age group?",
        PrivacyConfig(kind="single_choice", is_private=False, options=AGE_OPTIONS),
        _shares(0.3, 0.3, 0.3, 0.1),
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
            "A short demonstration survey with one question of every kind. Six "
            "of its seven questions are protected: your device randomizes those "
            "answers before sending them. The age group is not protected."
        ),
        consent_text=(
            "Taking part is voluntary and anonymous. You can stop at any time "
            "before pressing “Send”; nothing is sent before that."
        ),
        epsilon_budget=8.0,
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
    samplers = {text: sampler for text, _, sampler in DEMO_QUESTIONS}
    columns: dict[int, list] = {}
    private: dict[int, int] = {}  # question id -> spec revision
    for question in survey.questions.all():
        sampler = samplers.get(question.text)
        if sampler is None:
            raise ValueError(f"question {question.text!r} is not a demo question")
        truth = sampler(rng, count)
        mechanism = question.compiled_mechanism()
        if mechanism is not None:
            values = truth if facts(question.kind).several else np.asarray(truth)
            columns[question.pk] = mechanism.randomize(values, rng).tolist()
            private[question.pk] = question.spec_revision
        else:
            columns[question.pk] = truth
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
