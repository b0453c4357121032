"""A survey in three languages, in headless Chromium: the researcher adds
Spanish and French on the Languages page, fills every translation, declares the
recorded language and publishes; three respondents answer with their browsers
in English, Spanish and French.  The export has a language column because the
researcher declared it.  Where the accessibility gate is installed (the
``axe_gate`` fixture), every page is checked at desktop and phone size.
Screenshots go to test-artifacts/journeys/."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.analysis.exports import dataset_columns, datasets
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import Submission
from tests.system.browser.journeys.conftest import DESKTOP, PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

TEXTS = {
    "Spanish": {
        "survey_title": "Vida estudiantil",
        "survey_consent_text": "Sus respuestas se protegen en su dispositivo.",
        "text": ["¿Ha copiado alguna vez en un examen?", "¿En qué año está?"],
        "options": [[], ["Uno", "Dos"]],
    },
    "French": {
        "survey_title": "Vie étudiante",
        "survey_consent_text": "Vos réponses sont protégées sur votre appareil.",
        "text": ["Avez-vous déjà triché à un examen ?", "En quelle année êtes-vous ?"],
        "options": [[], ["Première", "Deuxième"]],
    },
}
# Locale, screen, and what the respondent reads: the title, the protected
# question and an answer label.  "Yes" and "No" are the site's own words (its
# catalogs), so the yes/no answer is picked as the question's first choice.
RESPONDENTS = (
    ("en-GB", DESKTOP, "Student life", "Have you ever cheated on an exam?", "Second"),
    ("es-ES", PHONE, "Vida estudiantil", TEXTS["Spanish"]["text"][0], "Dos"),
    ("fr-FR", DESKTOP, "Vie étudiante", TEXTS["French"]["text"][0], "Deuxième"),
)


def _gate(request):
    """The accessibility gate of this test, if the suite has one."""
    try:
        return request.getfixturevalue("axe_gate")
    except pytest.FixtureLookupError:
        return None


def _translate(page, language: str, count: int) -> None:
    page.get_by_role("link", name=language).click()
    texts = TEXTS[language]
    page.get_by_label(f"Title in {language}").fill(texts["survey_title"])
    page.get_by_label(f"Consent text in {language}").fill(texts["survey_consent_text"])
    for number in range(1, count + 1):
        page.get_by_label(f"Question text of question {number} in {language}").fill(
            texts["text"][number - 1]
        )
        for index, label in enumerate(texts["options"][number - 1]):
            page.get_by_label(
                f"Answer {index + 1} of question {number} in {language}"
            ).fill(label)
    page.get_by_role("button", name=f"Save {language}").click()
    expect(page.get_by_role("status")).to_contain_text(
        f"{language} saved; it is complete"
    )


def test_a_survey_is_translated_published_and_answered_in_three_languages(
    request, live_server, browser, researcher, artifacts
):
    gate = _gate(request)
    survey = authoring.survey_create(
        owner=researcher,
        title="Student life",
        consent_text="Your answers are protected on your device.",
    )
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    authoring.question_create(
        survey=survey,
        text="Which year are you in?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("First", "Second")
        ),
        not_private_acknowledged=True,
    )
    questions = list(survey.questions.all())

    desk = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(desk, live_server.url)
    desk.goto(live_server.url + reverse("authoring:survey_detail", args=[survey.pk]))
    desk.get_by_role("link", name="Languages").click()
    desk.get_by_label("Spanish").check()
    desk.get_by_label("French").check()
    desk.get_by_label("Record each response's language").check()
    desk.get_by_role("button", name="Save languages").click()
    expect(desk.get_by_role("status")).to_contain_text("Languages saved")
    expect(desk.locator("#language-es")).to_contain_text("incomplete")

    # Publishing with the translations missing is refused, naming what is missing.
    desk.goto(live_server.url + reverse("authoring:survey_detail", args=[survey.pk]))
    desk.get_by_role("button", name="Publish").click()
    expect(desk.locator("body")).to_contain_text(
        "The Spanish translation is incomplete"
    )

    desk.goto(live_server.url + reverse("authoring:survey_languages", args=[survey.pk]))
    _translate(desk, "Spanish", len(questions))
    desk.screenshot(path=str(artifacts / "survey-languages.png"), full_page=True)
    _translate(desk, "French", len(questions))
    expect(desk.locator("#language-fr")).to_contain_text("complete.")
    desk.goto(live_server.url + reverse("authoring:survey_detail", args=[survey.pk]))
    if desk.locator("#weak-protection-warning").count():
        desk.get_by_label("I have read this and want to publish").check()
    desk.get_by_role("button", name="Publish").click()
    expect(desk.get_by_role("status")).to_be_visible()
    survey.refresh_from_db()
    assert survey.status == "open"

    for locale, viewport, title, protected, plain in RESPONDENTS:
        context = browser.new_context(viewport=viewport, locale=locale)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        page.goto(live_server.url + f"/s/{survey.public_token}/")
        expect(page.get_by_role("heading", level=1)).to_have_text(title)
        expect(page.locator("html")).to_have_attribute("lang", locale[:2])
        expect(page.locator("#kept-language")).to_be_attached()
        picker = page.locator("#language-choice option")
        expect(picker).to_have_count(3)
        page.locator("#take-part").click()
        send = page.locator("form[data-respond] button[type=submit]")
        expect(send).to_be_enabled()
        expect(page.get_by_role("heading", level=1)).to_have_text(title)
        page.get_by_label(plain, exact=True).check()
        page.get_by_role("group", name=protected).get_by_role("radio").first.check()
        page.screenshot(
            path=str(artifacts / f"survey-languages-{locale}.png"), full_page=True
        )
        send.click()
        page.wait_for_url("**/s/receipt/**")
        context.close()
        assert errors == []

    languages = sorted(Submission.objects.values_list("language", flat=True))
    assert languages == ["en", "es", "fr"]
    header, *rows = list(datasets.wide_csv_lines(survey))
    assert header.split(",")[1] == dataset_columns.LANGUAGE_COLUMN
    assert sorted(row.split(",")[1] for row in rows) == ["en", "es", "fr"]
    if gate is not None:
        assert gate.checked, "the accessibility gate checked no page"
