"""Fixtures for the survey builder: researchers, surveys, questions, responses."""

from __future__ import annotations

import uuid

import pytest

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import Submission

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", password=PASSWORD)


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", password=PASSWORD)


@pytest.fixture
def ada_client(client, ada):
    client.force_login(ada)
    return client


@pytest.fixture
def make_survey(ada):
    def make(owner=None, **fields):
        fields.setdefault("title", "Student life")
        return services.survey_create(owner=owner or ada, **fields)

    return make


@pytest.fixture
def add_question():
    def add(survey, kind="yes_no", text="Have you ever cheated on an exam?", **privacy):
        acknowledged = privacy.pop("acknowledged", False)
        return services.question_create(
            survey=survey,
            text=text,
            privacy=PrivacyConfig(kind=kind, **privacy),
            not_private_acknowledged=acknowledged,
        )

    return add


@pytest.fixture
def survey(make_survey, add_question):
    """A draft with a yes/no and a single-choice question."""
    survey = make_survey()
    add_question(survey)
    add_question(
        survey,
        kind="single_choice",
        text="How often do you drink?",
        options=("Never", "Monthly", "Weekly", "Daily"),
    )
    return survey


@pytest.fixture
def respond():
    """Store one (empty) submission, as the collection app would."""

    def respond(survey):
        return Submission.objects.create(
            survey=survey,
            idempotency_key=uuid.uuid4(),
            survey_revision=survey.revision,
        )

    return respond
