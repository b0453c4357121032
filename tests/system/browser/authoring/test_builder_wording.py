"""The builder's "Respondents read" is what the respondent's device shows.

The builder words the preview with the device's own modules (randomizer.js for
the verdict, wording.js for the words), loaded from this site; the answer page
of the published survey must show the very same line for the same question.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from tests.surveys.authoring.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)
pytest.importorskip("playwright.sync_api")

PLACEHOLDER = "Worded by the respondent's device"


def _sign_in(page, base: str) -> None:
    page.goto(base + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")


def _builder_sentence(page, base: str, survey, question) -> str:
    url = reverse(
        "authoring:question_edit",
        kwargs={"pk": survey.pk, "question_pk": question.pk},
    )
    page.goto(base + url)
    sentence = page.locator("#preview-sentence")
    page.wait_for_function(
        "text => !document.getElementById('preview-sentence')"
        ".textContent.startsWith(text)",
        arg=PLACEHOLDER,
    )
    return sentence.text_content().strip()


def _answer_page_line(page, base: str, survey, question) -> str:
    page.goto(base + reverse("collection:respond", args=[survey.public_token]))
    line = page.locator(f'[data-protection-for="{question.pk}"] p.protection')
    line.wait_for()
    return line.text_content().strip()


def test_builder_shows_the_answer_pages_protection_line_for_each_question(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = services.survey_create(owner=ada, title="Wording", epsilon_budget=10)
    questions = [
        services.question_create(
            survey=survey,
            text="Have you ever cheated on an exam?",
            privacy=PrivacyConfig(kind="yes_no", epsilon=1.0),
        ),
        services.question_create(
            survey=survey,
            text="Hours of sleep last night",
            privacy=PrivacyConfig(
                kind="numeric",
                epsilon=2.0,
                low=Decimal(0),
                high=Decimal(12),
                step=Decimal(1),
                mechanism="geometric",
            ),
        ),
        services.question_create(
            survey=survey,
            text="Which of these do you use?",
            privacy=PrivacyConfig(
                kind="multi_select", options=("A", "B", "C", "D"), max_selections=2
            ),
        ),
        services.question_create(
            survey=survey,
            text="Your age group",
            privacy=PrivacyConfig(
                kind="single_choice", is_private=False, options=("Young", "Old")
            ),
            not_private_acknowledged=True,
        ),
    ]
    survey = services.survey_publish(survey=survey, user=ada)
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    _sign_in(page, live_server.url)
    builder = [
        _builder_sentence(page, live_server.url, survey, question)
        for question in questions
    ]
    respondent = browser.new_page()
    device = [
        _answer_page_line(respondent, live_server.url, survey, question)
        for question in questions
    ]
    assert builder == device
    assert builder[0] and builder[0] != builder[1]
    assert problems == []
