"""Unprotected number answers: a number from low to high on the step, or a 400.

1e309, -1e309 and twenty 9s once reached Django's float-based step validator and
failed with "math domain error": a 500, an ERROR traceback and an email to the
admins, from an unauthenticated POST.
"""

from __future__ import annotations

import logging
import uuid
from decimal import Decimal

import pytest
from django.core import mail
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import PlainAnswer, Submission

pytestmark = pytest.mark.django_db

AGE = PrivacyConfig(
    kind="numeric",
    is_private=False,
    low=Decimal("16"),
    high=Decimal("99.5"),
    step=Decimal("0.5"),
)


@pytest.fixture
def survey(researcher):
    survey = authoring.survey_create(owner=researcher, title="Ages")
    authoring.question_create(
        survey=survey, text="Your age?", privacy=AGE, not_private_acknowledged=True
    )
    return authoring.survey_publish(survey=survey, user=researcher)


def post_answer(client, survey, answer: str):
    question = survey.questions.get()
    return client.post(
        reverse("collection:respond", args=[survey.public_token]),
        {
            "idempotency_key": str(uuid.uuid4()),
            "survey_revision": str(survey.revision),
            f"q{question.pk}": answer,
        },
    )


@pytest.mark.parametrize(
    "answer",
    [
        "1e309",
        "-1e309",
        "9" * 20,
        "-" + "9" * 20,
        "1e99999999999999999999",
        "1e-99999999",
        "9" * 5000,
        "NaN",
        "Infinity",
        "16.25",  # off the step
        "16.00000000000000000000000000001",  # off the step below float precision
        "15.5",
        "100",
        "1e1",
    ],
)
def test_a_number_off_the_grid_is_refused_with_400_and_no_error_logged(
    client, survey, answer, caplog
):
    with caplog.at_level(logging.WARNING):
        response = post_answer(client, survey, answer)
    assert response.status_code == 400
    assert (
        "The answer to “Your age?” must be a number from 16 to 99.5, in steps of 0.5."
        in response.content.decode()
    )
    assert not Submission.objects.exists()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert mail.outbox == []


@pytest.mark.parametrize(
    ("answer", "stored"), [("16", "16"), ("42.5", "42.5"), ("99.50", "99.50")]
)
def test_a_number_on_the_grid_is_stored(client, survey, answer, stored):
    response = post_answer(client, survey, answer)
    assert response.status_code == 303
    assert PlainAnswer.objects.get().value == stored


@pytest.mark.parametrize("answer", ["20.000", "50,000", "1_000", "99.500", "2_0"])
def test_a_number_that_may_carry_thousands_separators_is_refused_not_guessed(
    client, survey, answer
):
    # "20.000" is twenty thousand to an English reader and twenty to a Spanish
    # one; the grid has one decimal, so the server refuses rather than guess.
    response = post_answer(client, survey, answer)
    assert response.status_code == 400
    assert (
        "The answer to “Your age?” must be a number from 16 to 99.5, in steps of 0.5."
        in response.content.decode()
    )
    assert not Submission.objects.exists()


def test_a_number_with_three_decimals_is_read_as_decimals_on_a_fine_grid(
    client, researcher
):
    survey = authoring.survey_create(owner=researcher, title="Doses")
    fine = PrivacyConfig(
        kind="numeric",
        is_private=False,
        low=Decimal("0"),
        high=Decimal("2"),
        step=Decimal("0.125"),
    )
    authoring.question_create(
        survey=survey, text="Dose?", privacy=fine, not_private_acknowledged=True
    )
    survey = authoring.survey_publish(survey=survey, user=researcher)
    response = post_answer(client, survey, "1.125")
    assert response.status_code == 303
    assert PlainAnswer.objects.get().value == "1.125"


def test_the_number_input_carries_the_range_and_step(client, survey):
    page = client.get(reverse("collection:respond", args=[survey.public_token]))
    html = page.content.decode()
    assert 'min="16"' in html
    assert 'max="99.5"' in html
    assert 'step="0.5"' in html
