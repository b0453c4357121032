"""A number typed with a thousands separator, in Chromium, in Spanish.

"1.000" is a thousand to a Spanish respondent and one to an English reader;
on a whole-number grid the device refuses it with its Spanish sentence and
sends nothing, and "1000" goes through (docs/device-languages.md, section 4).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.models import Submission
from tests.browser import served_in_language

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def income(researcher) -> Survey:
    survey = authoring.survey_create(owner=researcher, title="Income")
    authoring.question_create(
        survey=survey,
        text="Monthly income?",
        privacy=PrivacyConfig(
            kind="numeric",
            mechanism="geometric",
            low=Decimal("0"),
            high=Decimal("2000"),
            step=Decimal("10"),
        ),
    )
    return authoring.survey_publish(survey=survey, user=researcher)


def test_a_spanish_thousands_separator_is_refused_in_spanish_and_nothing_is_sent(
    live_server, browser, income
):
    url = live_server.url + reverse("collection:respond", args=[income.public_token])
    context = browser.new_context(locale="es")
    context.route(url, served_in_language("es"))
    posts: list[str] = []
    context.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=10_000)
    question = income.questions.get()
    box = f"#id_q{question.pk}_answer_value"
    message = page.locator(f"#error-q{question.pk}")

    page.fill(box, "1.000")
    page.click('button[type="submit"]')
    expect(message).to_have_text(
        "«1.000» puede llevar un separador de miles, así que podría leerse mal. "
        "Escriba el número sin separadores de miles, por ejemplo 2000."
    )
    assert page.get_attribute(box, "aria-invalid") == "true"
    assert posts == []
    assert not Submission.objects.exists()

    page.fill(box, "1000")
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=10_000)
    assert len(posts) == 1
    assert Submission.objects.count() == 1
    assert errors == []
    context.close()
