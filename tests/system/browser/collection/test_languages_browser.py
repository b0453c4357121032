"""The device's wording in Spanish and French, in Chromium.

The page's language is its ``<html lang>``; the device (``ldp/js/wording.js``)
words every sentence about protection in that language from the checked
weights, and the page script's UI strings come from the language's djangojs
catalog, fetched with its integrity hash.  The language is set as
``tests.browser.served_in_language`` describes.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from tests.browser import served_in_language

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "es": {
        "strength": "Protección fuerte",
        "chance": "veces de cada",
        "total": "Pérdida de privacidad total de esta encuesta ε = ",
        "section": "Sección 1 de 2",
        "send": "Enviar mis respuestas",
    },
    "fr": {
        "strength": "Protection forte",
        "chance": "fois sur",
        "total": "Perte de confidentialité totale pour cette enquête ε = ",
        "section": "Section 1 sur 2",
        "send": "Envoyer mes réponses",
    },
}
# Separators per language: (group, decimal).
SEPARATORS = {"en": (",", "."), "es": (".", ","), "fr": ("\u202f\u00a0", ",")}


@pytest.fixture
def two_sections(researcher) -> Survey:
    survey = authoring.survey_create(owner=researcher, title="Languages")
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
        section_title="Exams",
    )
    authoring.question_create(
        survey=survey,
        text="Which fruit do you like best?",
        privacy=PrivacyConfig(
            kind="single_choice",
            options=("Apple", "Pear", "Plum", "Fig"),
            mechanism="grr",
        ),
        section_title="Fruit",
    )
    return authoring.survey_publish(survey=survey, user=researcher)


def figures(text: str, language: str) -> list[str]:
    """The numbers in ``text`` read with ``language``'s separators, sorted."""
    group, decimal = SEPARATORS[language]
    groups = "[" + re.escape(group) + "]"
    pattern = rf"\d+(?:{groups}\d{{3}})*(?:{re.escape(decimal)}\d+)?"
    found = re.findall(pattern, text)
    return sorted(re.sub(groups, "", n).replace(decimal, ".") for n in found)


def device_texts(browser, url: str, language: str | None, selectors: list[str]):
    context = browser.new_context(locale=language or "en-GB")
    if language:
        context.route(url, served_in_language(language))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    expect(page.locator(selectors[0]).first).not_to_be_empty(timeout=10_000)
    texts = [page.locator(s).first.text_content() or "" for s in selectors]
    context.close()
    assert errors == []
    return texts


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_consent_page_words_protection_and_the_survey_total_in_the_language(
    live_server, browser, two_sections, language
):
    url = live_server.url + f"/s/{two_sections.public_token}/"
    selectors = [
        '[data-device-text="total-epsilon"]',
        '[data-device-text="total-odds"]',
        '[data-device-text="overall"]',
        ".protection",
        '[data-device-text="how"]',
    ]
    english = device_texts(browser, url, None, selectors)
    translated = device_texts(browser, url, language, selectors)
    words = WORDS[language]
    assert translated[0].startswith(words["total"]), translated[0]
    assert english[0].startswith("Total privacy loss for this survey ε = ")
    assert words["strength"] in translated[3]
    assert words["chance"] in translated[3]
    for mine, theirs in zip(translated, english, strict=True):
        assert mine != theirs
        assert figures(mine, language) == figures(theirs, "en"), (mine, theirs)


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_answer_page_speaks_the_language_with_its_catalog(
    live_server, browser, two_sections, language
):
    url = live_server.url + f"/s/{two_sections.public_token}/answer/"
    context = browser.new_context(locale=language)
    context.route(url, served_in_language(language))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    catalogs: list[int] = []
    page.on(
        "response",
        lambda r: catalogs.append(r.status) if "/js/i18n/" in r.url else None,
    )
    page.goto(url)
    words = WORDS[language]
    expect(page.locator("#section-position")).to_have_text(words["section"])
    expect(page.locator(".protection").first).to_contain_text(words["strength"])
    expect(page.locator(".protection").first).to_contain_text(words["chance"])
    page.locator("#section-1 input[type=radio]").first.check()
    page.locator("#section-1 [data-section-next]").click()
    second = page.locator("#section-2 .protection").first
    expect(second).to_contain_text(words["chance"])
    expect(page.get_by_role("button", name=words["send"])).to_be_visible()
    assert 200 in catalogs
    assert errors == []
    context.close()
