"""Fixtures for the system tests: a survey, Chromium as respondents run it.

The browser keeps Chromium's back-forward cache on (Playwright turns it off
by default), because a page restored from it is one of the cases the device
must handle.  Screenshots go to ``test-artifacts/system/``.
"""

from __future__ import annotations

import math
import uuid
from pathlib import Path

import pytest

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from tests.browser import headless_chromium
from tests.system.identity_provider import (  # noqa: F401  (fixtures)
    provider,
    single_sign_on,
)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "system"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

CHEATED = "Have you ever cheated on an exam?"
COLOUR = "Which colour do you like best?"
SMOKED = "Have you smoked this week?"
AGE = "What is your age group?"
COLOURS = ("Red", "Green", "Blue", "Cyan", "Magenta")
AGES = ("Under 30", "30 to 59", "60 or over")
# The answers every test gives: (question, label).
ANSWERS = ((CHEATED, "Yes"), (COLOUR, "Blue"), (SMOKED, "Yes"), (AGE, "30 to 59"))
PROTECTED = (CHEATED, COLOUR, SMOKED)


@pytest.fixture(autouse=True)
def _fresh_rate_limit_counters(settings) -> None:
    """Rate limits stay on; their counters start empty for each test."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"system-{uuid.uuid4()}",
        }
    }


@pytest.fixture(autouse=True)
def _fast_password_hashing_in_browsers(request) -> None:
    """MD5 password hashing for the browser tier's tests.

    They make accounts and sign in through the login page in almost every
    test; the production hasher costs about a second per hash on two cores,
    and hashing itself is tested with it in tests/surveys/accounts.  The live
    server runs in the test's process, so it checks passwords the same way.
    """
    if request.node.get_closest_marker("browser") is not None:
        settings = request.getfixturevalue("settings")
        settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def chromium():
    """Headless Chromium with its back-forward cache on."""
    with headless_chromium(back_forward_cache=True) as launched:
        yield launched


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("ada", password="x" * 20)


def make_survey(owner, *, allow_reanswer: bool = False) -> Survey:
    """Three protected questions (Warner, GRR, the coin design) and a plain one."""
    survey = authoring.survey_create(
        owner=owner,
        title="Habits",
        epsilon_budget=4.0,
        researcher_contact="Ada Lovelace, ada@example.org",
        allow_reanswer=allow_reanswer,
    )
    questions = [
        (CHEATED, PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="warner")),
        (
            COLOUR,
            PrivacyConfig(
                kind="single_choice", options=COLOURS, epsilon=1.0, mechanism="grr"
            ),
        ),
        (
            SMOKED,
            PrivacyConfig(
                kind="yes_no", epsilon=math.log(3), mechanism="forced_response"
            ),
        ),
    ]
    for text, config in questions:
        authoring.question_create(survey=survey, text=text, privacy=config)
    authoring.question_create(
        survey=survey,
        text=AGE,
        privacy=PrivacyConfig(kind="single_choice", is_private=False, options=AGES),
        not_private_acknowledged=True,
    )
    return authoring.survey_publish(survey=survey, user=owner)


@pytest.fixture
def survey(owner) -> Survey:
    return make_survey(owner)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
