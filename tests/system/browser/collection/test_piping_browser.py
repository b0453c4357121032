"""Piping on the real answer page in Chromium: an earlier unprotected answer
appears in a later unprotected question's text as the respondent answers, as
text and never as markup."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE = '<img src=x onerror="window.piped=1"><b>Lyon</b>'


@pytest.fixture
def piped_survey(researcher):
    survey = authoring.survey_create(owner=researcher, title="Piping")
    plain = {"is_private": False}
    town = authoring.question_create(
        survey=survey,
        text="Your town?",
        privacy=PrivacyConfig(kind="short_text", **plain),
        not_private_acknowledged=True,
    )
    colour = authoring.question_create(
        survey=survey,
        text="Colour?",
        privacy=PrivacyConfig(
            kind="multi_select", options=("Red", "Blue"), other_option=True, **plain
        ),
        not_private_acknowledged=True,
    )
    liked = authoring.question_create(
        survey=survey,
        text="Do you like {{q2}} things in {{q1}}?",
        privacy=PrivacyConfig(kind="yes_no", **plain),
        not_private_acknowledged=True,
    )
    cheated = authoring.question_create(
        survey=survey, text="Cheated?", privacy=PrivacyConfig(kind="yes_no")
    )
    survey = authoring.survey_publish(survey=survey, user=researcher)
    return survey, town, colour, liked, cheated


def test_an_earlier_answer_fills_the_later_text_as_text_never_as_markup(
    live_server, piped_survey, browser
):
    survey, town, colour, liked, cheated = piped_survey
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(
        live_server.url + reverse("collection:respond", args=[survey.public_token])
    )
    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=15_000)
    legend = page.locator(f"#question-{liked.pk} legend")
    assert "Do you like … things in …?" in legend.inner_text()

    page.fill(f'input[name="q{town.pk}"]', HOSTILE)
    page.locator(f'input[name="q{colour.pk}"][value="0"]').check()
    page.locator(f'input[name="q{colour.pk}"][value="2"]').check()
    page.fill(f'input[name="q{colour.pk}_other"]', "Teal")
    assert f"Do you like Red and Teal things in {HOSTILE}?" in legend.inner_text()
    assert legend.locator("img, b").count() == 0
    assert page.evaluate("window.piped") is None
    # The protected question's text is never filled in.
    assert page.locator(f"#question-{cheated.pk} [data-pipe]").count() == 0

    page.fill(f'input[name="q{town.pk}"]', "")
    assert "things in …?" in legend.inner_text()
    page.locator(f'[name="q{liked.pk}"][value="1"]').check()
    page.locator(f'[data-answer-group="q{cheated.pk}_answer"] input[value="0"]').check()
    page.fill(f'input[name="q{town.pk}"]', "Nice")
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=15_000)
    assert errors == []
