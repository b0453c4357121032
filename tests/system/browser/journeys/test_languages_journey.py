"""A respondent takes a survey in Spanish and in French, in headless Chromium.

The language comes from the browser's own (Playwright's ``locale``, which
sets Accept-Language) or from the picker on every page, which works from the
keyboard and without the page's script.  The assertions are on the words the
server renders; the device writes its own sentences about protection (in
whatever language it has), which are not checked here.  Arabic shows the
right-to-left layout at phone width without sideways overflow.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.models import PlainAnswer, Report, Submission
from tests.surveys.collection.conftest import offered_in
from tests.system.browser.journeys.conftest import DESKTOP, PHONE

pytestmark = pytest.mark.django_db(transaction=True)

# The words of each step the server renders, per language.
WORDS = {
    "es": {
        "take_part": "Participar",
        "send": "Enviar mis respuestas",
        "thanks": "Gracias: sus respuestas han llegado",
        "why": "Por qué esto le protege",
    },
    "fr": {
        "take_part": "Participer",
        "send": "Envoyer mes réponses",
        "thanks": "Merci\u00a0: vos réponses sont arrivées",
        "why": "Pourquoi cela vous protège",
    },
}


@pytest.fixture
def study(researcher) -> Survey:
    survey = authoring.survey_create(owner=researcher, title="Estudio · Étude")
    authoring.question_create(
        survey=survey,
        text="¿Alguna vez copió en un examen? / Avez-vous déjà triché ?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    authoring.question_create(
        survey=survey,
        text="Turno / Horaire",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("Mañana", "Tarde")
        ),
        not_private_acknowledged=True,
    )
    # Offered in every language the journeys use (a survey offered only in
    # its source language is served in that language whatever the browser
    # asks); each text is translated as "[code] source text".
    offered_in(survey, "es", "fr", "ar")
    return authoring.survey_publish(survey=survey, user=researcher)


def answer_and_send(page, words: dict[str, str]) -> list:
    """From the consent page to the receipt; the answer POSTs it made."""
    page.get_by_role("link", name=words["take_part"]).click()
    send = page.get_by_role("button", name=words["send"])
    expect(send).to_be_enabled()
    page.get_by_role("group", name="¿Alguna vez").get_by_label("No").check()
    page.get_by_role("group", name="Turno / Horaire").get_by_label("Tarde").check()
    with page.expect_request(lambda r: r.method == "POST") as sent:
        send.click()
    page.wait_for_url("**/s/receipt/**")
    expect(page.get_by_role("heading", level=1)).to_have_text(words["thanks"])
    expect(page.get_by_role("heading", name=words["why"])).to_be_visible()
    return [sent.value]


def html_lang(page) -> tuple[str, str]:
    return (
        page.evaluate("document.documentElement.lang"),
        page.evaluate("document.documentElement.dir"),
    )


@pytest.mark.parametrize(
    ("locale", "language", "size"),
    [("es-ES", "es", "desktop"), ("fr-FR", "fr", "phone")],
)
def test_a_survey_in_the_browsers_language_from_consent_to_receipt(
    live_server, browser, study, locale, language, size
):
    context = browser.new_context(
        locale=locale, viewport=DESKTOP if size == "desktop" else PHONE
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(live_server.url + f"/s/{study.public_token}/")
    assert html_lang(page) == (language, "ltr")
    (post,) = answer_and_send(page, WORDS[language])
    assert html_lang(page) == (language, "ltr")
    context.close()
    assert errors == []
    # The language travels with no submission.
    assert "language" not in (post.post_data or "")
    assert Submission.objects.count() == 1
    assert Report.objects.count() == 1
    assert PlainAnswer.objects.count() == 1


def test_the_picker_changes_the_language_by_keyboard_and_keeps_the_page(
    live_server, browser, study
):
    context = browser.new_context(
        locale="en-US", viewport=PHONE, java_script_enabled=False
    )
    page = context.new_page()
    consent = live_server.url + f"/s/{study.public_token}/"
    page.goto(consent)
    assert html_lang(page) == ("en", "ltr")
    picker = page.get_by_label("Language")
    picker.focus()
    picker.select_option("fr")
    page.get_by_role("button", name="Change language").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    # Back on the same page (no script ran), now in French.
    assert page.url == consent
    assert html_lang(page) == ("fr", "ltr")
    expect(page.get_by_label("Langue")).to_have_value("fr")
    context.close()
    # axe needs script, so the same French page passes the accessibility gate
    # in a context with JavaScript on.
    checked = browser.new_context(locale="fr-FR", viewport=PHONE)
    french = checked.new_page()
    french.goto(consent)
    assert html_lang(french) == ("fr", "ltr")
    checked.close()


def test_the_picked_language_lasts_to_the_receipt(live_server, browser, study):
    context = browser.new_context(locale="en-US", viewport=DESKTOP)
    page = context.new_page()
    page.goto(live_server.url + f"/s/{study.public_token}/")
    page.get_by_label("Language").select_option("es")
    page.get_by_role("button", name="Change language").click()
    expect(page.get_by_role("link", name="Participar")).to_be_visible()
    (post,) = answer_and_send(page, WORDS["es"])
    assert html_lang(page) == ("es", "ltr")
    cookie = {c["name"]: c for c in context.cookies()}["django_language"]
    assert cookie["value"] == "es"
    assert cookie["expires"] == -1  # deleted when the browser closes
    assert "language" not in (post.post_data or "")
    context.close()


@pytest.mark.parametrize("path", ["", "answer/"])
def test_arabic_pages_are_right_to_left_without_overflow_on_a_phone(
    live_server, browser, study, path
):
    context = browser.new_context(locale="ar", viewport=PHONE)
    page = context.new_page()
    page.goto(live_server.url + f"/s/{study.public_token}/{path}")
    assert html_lang(page) == ("ar", "rtl")
    expect(page.get_by_role("button", name="تغيير اللغة")).to_be_visible()
    if path:
        expect(page.get_by_role("button", name="أرسل إجاباتي")).to_be_enabled()
    sideways = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert sideways <= 0
    # The skip link hides off the page on the right (the start side) and
    # comes back when focused.
    page.keyboard.press("Tab")
    box = page.get_by_role("link", name="انتقل إلى المحتوى").bounding_box()
    assert box is not None and 0 <= box["x"] <= PHONE["width"]
    context.close()
