"""A researcher works the builder in French, in headless Chromium.

She signs in, picks French with the language picker (by keyboard), creates a
survey, adds a protected yes/no question and a not protected single-choice
question with a decimal ε, publishes it, and reads French headings, buttons and
messages throughout, while everything she typed (title, questions, answer
labels) stays exactly as she typed it and the ε she entered is stored as the
number she meant.  Every page passes the accessibility gate at desktop and
phone size.  Screenshots go to test-artifacts/journeys/.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from surveys.authoring.models import Survey
from tests.system.browser.journeys.conftest import DESKTOP, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "Student life, honestly"
SENSITIVE = "Have you ever cheated on an exam?"
PLAIN = "Which faculty are you in?"
FACULTIES = ("Arts", "Science", "Law")


def test_a_researcher_builds_and_publishes_a_survey_in_french(
    live_server, browser, researcher, artifacts
):
    page = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(page, live_server.url)

    picker = page.get_by_label("Language")
    picker.focus()
    picker.select_option("fr")
    page.get_by_role("button", name="Change language").press("Enter")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.get_by_role("heading", level=1)).to_have_text("Mes enquêtes")

    page.get_by_role("link", name="Nouvelle enquête").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Nouvelle enquête")
    page.get_by_label("Titre").fill(TITLE)
    page.get_by_label("Budget de confidentialité (ε total par répondant)").fill("3.5")
    page.get_by_label("Nombre prévu de répondants").fill("400")
    page.get_by_role("button", name="Créer l’enquête").click()
    expect(page.get_by_role("status").first).to_contain_text(
        "Enquête créée. Ajoutez maintenant ses questions."
    )
    expect(page.get_by_role("heading", level=1)).to_have_text(TITLE)

    page.get_by_role("link", name="Ajouter une question", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Ajouter une question")
    page.get_by_label("Type de question").select_option("yes_no")
    page.locator("#id_text").fill(SENSITIVE)
    page.get_by_label("ε de cette question").fill("0.75")
    page.get_by_role("button", name="Enregistrer et en ajouter une autre").click()
    expect(page.get_by_role("status").first).to_contain_text("Question ajoutée.")

    page.get_by_label("Type de question").select_option("single_choice")
    page.locator("#id_text").fill(PLAIN)
    page.get_by_label("Options de réponse, une par ligne").fill("\n".join(FACULTIES))
    page.locator('input[name="protection"][value="plain"]').check()
    page.get_by_label("Je comprends que cette réponse n’est pas protégée").check()
    page.get_by_role("button", name="Enregistrer la question").click()
    expect(page.get_by_role("status").first).to_contain_text("Question ajoutée.")

    # The survey's page: French wording around the researcher's own texts.
    expect(page.get_by_role("heading", name="Questions", exact=True)).to_be_visible()
    expect(
        page.get_by_role("heading", name="Confidentialité par répondant")
    ).to_be_visible()
    expect(page.locator(".budget-figure")).to_contain_text("sur un budget de 3,500")
    expect(page.get_by_text("Protégée", exact=True)).to_be_visible()
    expect(page.locator(".question-list")).to_contain_text("3 options")
    expect(page.locator(".question-list")).to_contain_text(SENSITIVE)
    expect(page.locator(".question-list")).to_contain_text(PLAIN)
    page.screenshot(path=str(artifacts / "builder-french.png"), full_page=True)

    page.get_by_role("button", name="Publier", exact=True).click()
    expect(page.get_by_role("status").first).to_contain_text(
        re.compile(r"Publiée\s:\sl’enquête est ouverte")
    )
    expect(page.locator(".status")).to_have_text("Ouverte")

    survey = Survey.objects.get()
    assert survey.title == TITLE
    assert survey.epsilon_budget == 3.5
    sensitive, plain = survey.questions.order_by("position")
    assert (sensitive.text, sensitive.requested_epsilon) == (SENSITIVE, 0.75)
    assert (plain.text, tuple(plain.options)) == (PLAIN, FACULTIES)
    assert survey.published_at is not None
