"""Every page a respondent sees, in Spanish and French (docs/translations.md).

The browser's Accept-Language picks the language; each page says which it is
in ``<html lang>``, shows its own words translated and writes numbers the
language's way, each figure exact.
"""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone, translation

from surveys.authoring.models import Survey
from surveys.collection import services
from surveys.collection.models import Recipient
from surveys.collection.respondent_words import describe_report
from surveys.invitations import mailings, recipient_list
from tests.surveys.collection.conftest import JSON, body, offered_in, questions

pytestmark = pytest.mark.django_db

# One sentence of each page's own, per language.
CONSENT = {
    "es": "Lo que guarda el servidor: sus respuestas aleatorizadas y el día en que",
    "fr": "Ce que le serveur conserve\u00a0: vos réponses randomisées, et le jour où",
}
RESPOND = {"es": "Enviar mis respuestas", "fr": "Envoyer mes réponses"}
RECEIPT = {
    "es": "Gracias: sus respuestas han llegado",
    "fr": "Merci\u00a0: vos réponses",
}
DECLINED = {
    "es": "Decidió no participar.",
    "fr": "Vous avez choisi de ne pas participer.",
}
VERIFY = {
    "es": "Compruebe el código que protege sus respuestas",
    "fr": "Vérifiez le code qui protège vos réponses",
}
PICKER = {"es": "Cambiar idioma", "fr": "Changer de langue"}


@pytest.fixture
def survey(survey: Survey) -> Survey:
    """The collection tests' survey, offered in Spanish and French too (a
    survey is served only in the languages it is offered in)."""
    return offered_in(survey, "es", "fr")


def in_language(language: str) -> Client:
    return Client(HTTP_ACCEPT_LANGUAGE=language)


def page_text(response) -> str:
    return response.content.decode()


def says_language(html: str, language: str) -> bool:
    return f'<html lang="{language}" dir="ltr">' in html


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_consent_page_is_in_the_browsers_language(survey, language):
    url = reverse("collection:consent", args=[survey.public_token])
    html = page_text(in_language(language).get(url))
    assert says_language(html, language)
    assert CONSENT[language] in html
    assert PICKER[language] in html
    assert "What the server keeps" not in html


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_answer_page_is_in_the_browsers_language(survey, language):
    url = reverse("collection:respond", args=[survey.public_token])
    html = page_text(in_language(language).get(url))
    assert says_language(html, language)
    assert RESPOND[language] in html
    assert "Send my answers" not in html


YES_NO = {"es": ("Sí", "No"), "fr": ("Oui", "Non")}


@pytest.mark.parametrize("language", ["es", "fr"])
def test_yes_and_no_answers_are_labelled_in_the_browsers_language(survey, language):
    url = reverse("collection:respond", args=[survey.public_token])
    html = page_text(in_language(language).get(url))
    labels = re.findall(r"<label[^>]*>([^<]*)</label>", html)
    yes, no = YES_NO[language]
    # Two yes/no questions in the demo survey, each labelled in the language.
    assert labels.count(yes) == 2
    assert labels.count(no) == 2
    assert "Yes" not in labels


@pytest.mark.parametrize("language", ["es", "fr"])
def test_a_yes_no_report_on_the_receipt_is_in_the_browsers_language(survey, language):
    warner = questions(survey)["warner"]
    kind = {"es": "una respuesta sí/no aleatorizada", "fr": "une réponse oui/non"}
    with translation.override(language):
        for report, label in ((1, YES_NO[language][0]), (0, YES_NO[language][1])):
            said = describe_report(warner, report)
            assert said.startswith(kind[language]) and label in said


def test_numeric_ranges_are_written_with_the_languages_decimal_mark(kinds_survey):
    offered_in(kinds_survey, "es", "fr")
    url = reverse("collection:respond", args=[kinds_survey.public_token])
    french = page_text(in_language("fr").get(url))
    spanish = page_text(in_language("es").get(url))
    english = page_text(in_language("en").get(url))
    assert "un nombre de 0,5 à 5, par pas de 0,5" in french
    assert "un número de 0,5 a 5, en pasos de 0,5" in spanish
    assert "a number from 0.5 to 5, in steps of 0.5" in english
    # The device reads the exact bounds, whatever the language.
    assert 'data-low="0.5"' in french and 'data-step="0.5"' in french


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_receipt_is_in_the_browsers_language(survey, language):
    client = in_language(language)
    url = reverse("collection:respond", args=[survey.public_token])
    sent = client.post(url, body(survey), **JSON)
    assert sent.status_code == 201
    html = page_text(client.get(sent.json()["receipt_url"]))
    assert says_language(html, language)
    assert RECEIPT[language] in html
    with translation.override(language):
        day = formats.date_format(timezone.now(), "DATE_FORMAT")
    assert day in html  # e.g. "27 de noviembre de 2026", "27 novembre 2026"
    assert "Your device sent" not in html


def test_receipt_words_are_translated_with_exact_figures(kinds_survey):
    with translation.override("es"):
        assert describe_report(questions(kinds_survey)["geometric"], 0) == (
            "un número con ruido añadido, 0,5"
        )
    with translation.override("fr"):
        assert describe_report(questions(kinds_survey)["geometric"], 0) == (
            "un nombre auquel du bruit a été ajouté, 0,5"
        )
        assert describe_report(questions(kinds_survey)["duchi"], 1).startswith(
            "un «\u00a0haut\u00a0» aléatoire"
        )


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_declined_and_verify_pages_are_translated(client, language):
    browser = in_language(language)
    declined = page_text(browser.get(reverse("collection:declined")))
    verify = page_text(browser.get(reverse("collection:verify")))
    assert says_language(declined, language) and DECLINED[language] in declined
    assert says_language(verify, language) and VERIFY[language] in verify


def test_withdrawing_is_translated_from_lookup_to_the_end(survey):
    client = in_language("fr")
    url = reverse("collection:respond", args=[survey.public_token])
    receipt_url = client.post(url, body(survey), **JSON).json()["receipt_url"]
    code = receipt_url.rstrip("/").rsplit("/", 1)[-1]
    lookup = page_text(client.get(reverse("collection:withdraw_lookup")))
    assert "Votre code de reçu" in lookup
    wrong = client.post(reverse("collection:withdraw_lookup"), {"code": "nope"})
    assert wrong.status_code == 400
    assert "Aucune participation n’a ce code de reçu" in page_text(wrong)
    confirm = page_text(client.get(reverse("collection:withdraw", args=[code])))
    assert "Garder mes réponses" in confirm
    done = page_text(client.post(reverse("collection:withdraw", args=[code])))
    assert says_language(done, "fr") and "Vos réponses ont été retirées" in done


def test_problem_pages_say_what_happened_in_spanish(survey, researcher):
    client = in_language("es")
    bad = client.get(reverse("collection:consent_invitation", args=["x" * 30]))
    assert bad.status_code == 404
    assert "Este enlace de invitación no es válido." in page_text(bad)
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    closed = client.get(reverse("collection:consent", args=[survey.public_token]))
    assert closed.status_code == 410
    assert "Esta encuesta ha cerrado y ya no acepta respuestas." in page_text(closed)
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404
    assert "Página no encontrada" in page_text(missing)


def test_a_survey_not_open_yet_gives_its_date_the_french_way(survey):
    opens = timezone.now() + timedelta(days=40)
    Survey.objects.filter(pk=survey.pk).update(opens_at=opens)
    response = in_language("fr").get(
        reverse("collection:consent", args=[survey.public_token])
    )
    html = page_text(response)
    assert response.status_code == 403
    assert "Cette enquête n’est pas encore ouverte." in html
    assert str(opens.year) in html


def test_rate_limited_respondents_are_told_to_wait_in_their_language(survey, settings):
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMIT_PAGES_PER_ADDRESS = "1/60"
    settings.CACHES = {  # counters no other test has touched
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"translated-limits-{uuid.uuid4()}",
        }
    }
    client = in_language("es")
    url = reverse("collection:consent", args=[survey.public_token])
    responses = [client.get(url) for _ in range(3)]
    limited = [r for r in responses if r.status_code == 429]
    assert limited, "the page limit never applied"
    text = page_text(limited[-1])
    assert "Espere un momento" in text
    assert "segundo" in text


def test_the_unsubscribe_page_and_the_emails_footer_are_translated(survey):
    recipient_list.recipients_add(survey=survey, emails=["someone@example.org"])
    recipient = Recipient.objects.get(survey=survey)
    token = recipient_list.unsubscribe_token(recipient)
    html = page_text(
        in_language("fr").get(reverse("collection:unsubscribe", args=[token]))
    )
    assert says_language(html, "fr") and "Se désabonner" in html
    # An email's fixed text is in the survey's source language, whatever the
    # language active when it is sent.
    Survey.objects.filter(pk=survey.pk).update(source_language="es")
    survey.refresh_from_db()
    with translation.override("fr"):
        message = mailings._message(
            recipient, survey, "https://example.org", "Hola", "Enlace: {link}"
        )
    assert "No recibir más correos sobre ella" in message.alternatives[0][0]
    assert "Recibe este mensaje porque" in message.body
    assert not mail.outbox


def test_the_invitation_used_message_is_translated(survey):
    (token,) = services.invitations_create(survey=survey, count=1)
    client = in_language("fr")
    answer = reverse("collection:respond_invitation", args=[token])
    assert client.post(answer, body(survey), **JSON).status_code == 201
    used = client.get(reverse("collection:consent_invitation", args=[token]))
    assert used.status_code == 410
    assert "Ce lien d’invitation a déjà servi" in page_text(used)


def test_the_picked_language_is_a_browser_session_cookie_and_nothing_more(survey):
    client = in_language("en")
    consent = reverse("collection:consent", args=[survey.public_token])
    response = client.post(
        reverse("set_language"), {"language": "fr"}, HTTP_REFERER=consent
    )
    assert response.status_code == 302 and response["Location"] == consent
    cookie = response.cookies["django_language"]
    assert cookie.value == "fr"
    assert (cookie["max-age"], cookie["expires"]) == ("", "")
    assert cookie["httponly"]
    assert says_language(page_text(client.get(consent)), "fr")


def test_a_language_not_offered_is_never_shown(survey):
    client = in_language("en")
    client.post(reverse("set_language"), {"language": "de"})
    consent = reverse("collection:consent", args=[survey.public_token])
    assert says_language(page_text(client.get(consent)), "en")
