"""Invitation emails, the researcher's mailing pages and a survey's own pages
in the right language (docs/translations.md).

An email's fixed text is in the survey's languages (here only its source
language), whatever language the researcher's browser reads; the researcher's
subject and text go out as written (several languages:
test_mailing_languages.py).  A survey's pages are in the
respondent's language among the survey's; the researcher's pages follow the
browser, numbers written the language's way.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone, translation

from surveys.authoring import lifecycle_services
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.invitations import mailings, recipient_list, tasks
from tests.surveys.collection.conftest import offered_in

pytestmark = pytest.mark.django_db

BASE = "https://surveys.example.org"


def in_language(language: str) -> Client:
    return Client(HTTP_ACCEPT_LANGUAGE=language)


def page_text(response) -> str:
    return response.content.decode()


def written_in(survey: Survey, language: str) -> Survey:
    Survey.objects.filter(pk=survey.pk).update(source_language=language)
    return Survey.objects.get(pk=survey.pk)


@pytest.fixture
def owner_client(researcher):
    def make(language: str) -> Client:
        client = in_language(language)
        client.force_login(researcher)
        return client

    return make


# --- emails ---------------------------------------------------------------------------
def test_a_french_survey_sends_a_french_invitation_frame_with_the_researchers_text(
    survey,
):
    survey = written_in(survey, "fr")
    recipient_list.recipients_add(survey=survey, emails=["someone@example.org"])
    subject, body = mailings.mailing_defaults("invitation", survey)
    assert subject == "Invitation\u00a0: {title}"
    assert "Vous êtes invité(e) à participer à l’enquête «\u00a0{title}\u00a0»" in body
    with translation.override("es"):  # whatever the sender's page was read in
        result = tasks.send_mailing.delay(
            survey.pk, "invitation", BASE, subject, body + "\nÀ bientôt, Ada"
        ).result
    assert result == {"sent": 1, "refused": 0}
    (message,) = mail.outbox
    assert message.subject == f"Invitation\u00a0: {survey.title}"
    assert "Ce lien est pour vous seul(e)" in message.body
    assert "À bientôt, Ada" in message.body  # the researcher's words, as written
    assert "Vous recevez ce message parce qu’une équipe de recherche" in message.body
    html = message.alternatives[0][0]
    assert "Ne plus recevoir de courriels à son sujet" in html
    assert "You receive this" not in message.body + html


@pytest.mark.parametrize(
    ("language", "subject", "words"),
    [
        ("es", "Recordatorio: {title}", "Un recordatorio: le invitamos a participar"),
        ("fr", "Rappel\u00a0: {title}", "Un rappel\u00a0: vous êtes invité(e)"),
    ],
)
def test_the_reminder_starts_in_the_surveys_language(survey, language, subject, words):
    survey = written_in(survey, language)
    default_subject, body = mailings.mailing_defaults("reminder", survey)
    assert default_subject == subject
    assert words in body and "{link}" in body and "{title}" in body
    mailings.validate_template(default_subject, body)  # still a valid template


def test_an_english_survey_keeps_english_emails_for_a_spanish_reading_researcher(
    survey, owner_client
):
    html = page_text(
        owner_client("es").get(reverse("collection:recipients", args=[survey.pk]))
    )
    assert "Invitaciones por correo para" in html  # the page: the researcher's
    assert "Invitation: {title}" in html  # the email: the survey's language
    assert "You are invited to take part in the survey" in html


@pytest.mark.parametrize(
    ("language", "opened", "closed"),
    [
        ("es", "ya está abierta a respuestas", "se ha cerrado"),
        ("fr", "est maintenant ouverte aux réponses", "est close"),
    ],
)
def test_the_owner_is_told_of_an_opening_and_a_closing_in_the_surveys_language(
    survey, researcher, language, opened, closed
):
    researcher.email = "ada@example.org"
    researcher.save()
    now = timezone.now()
    Survey.objects.filter(pk=survey.pk).update(
        source_language=language, opens_at=now - timedelta(minutes=1)
    )
    assert lifecycle_services.notify_transitions(now=now)["opened"] == 1
    Survey.objects.filter(pk=survey.pk).update(closes_at=now + timedelta(minutes=1))
    later = now + timedelta(minutes=2)
    assert lifecycle_services.notify_transitions(now=later)["closed"] == 1
    opening, closing = mail.outbox
    assert opened in opening.subject and survey.title in opening.subject
    assert closed in closing.subject and closed in closing.body
    assert "Your survey" not in opening.body + closing.body


# --- the researcher's pages ---
def test_the_recipients_page_is_in_spanish_with_plurals(survey, owner_client, settings):
    settings.REMINDERS_MAX = 1
    recipient_list.recipients_add(
        survey=survey, emails=["a@example.org", "b@example.org"]
    )
    html = page_text(
        owner_client("es").get(reverse("collection:recipients", args=[survey.pk]))
    )
    assert '<html lang="es"' in html
    assert "Destinatarios por estado" in html
    assert "como máximo 1 recordatorio." in html
    assert "Se envía a los 2 destinatarios que aún no han recibido ninguna." in html
    # Field names and ids stay put for scripts and tests alike.
    assert 'id="recipient-counts"' in html and 'name="invitation-subject"' in html


def test_a_too_big_recipients_file_is_refused_with_french_figures(
    survey, owner_client, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = None
    raw = b"email\n" + b"a@example.org\n" * (recipient_list.CSV_MAX_BYTES // 14 + 1)
    with translation.override("fr"):
        most = formats.number_format(recipient_list.CSV_MAX_BYTES, force_grouping=True)
    assert most != "2000000" and most != "2,000,000"  # grouped the French way
    response = owner_client("fr").post(
        reverse("collection:recipients", args=[survey.pk]),
        {"addresses": SimpleUploadedFile("people.csv", raw, "text/csv")},
    )
    assert response.status_code == 400
    html = page_text(response)
    assert f"maximum autorisé\u00a0: {most}. Rien n’a été importé." in html
    assert not survey.recipients.exists()


def test_a_bad_line_in_the_file_is_named_in_spanish(survey, owner_client):
    raw = b"email\na@example.org\nnot an address\n"
    response = owner_client("es").post(
        reverse("collection:recipients", args=[survey.pk]),
        {"addresses": SimpleUploadedFile("people.csv", raw, "text/csv")},
    )
    html = page_text(response)
    assert "Línea 3: «not an address» no es una dirección de correo." in html
    assert "No se importó nada." in html


def test_the_import_message_counts_recipients_in_french(survey, owner_client):
    raw = b"email\na@example.org\nb@example.org\nb@example.org\n"
    client = owner_client("fr")
    response = client.post(
        reverse("collection:recipients", args=[survey.pk]),
        {"addresses": SimpleUploadedFile("people.csv", raw, "text/csv")},
        follow=True,
    )
    assert "2 destinataires ajoutés\u00a0; 1 déjà dans la liste ou en double." in (
        page_text(response)
    )


def test_the_invitations_page_is_in_french(survey, owner_client):
    html = page_text(
        owner_client("fr").get(reverse("collection:invitations", args=[survey.pk]))
    )
    assert "Liens d’invitation pour «\u00a0" in html
    assert "0 lien d’invitation créé jusqu’ici" in html  # French: 0 is singular
    assert 'name="count"' in html and 'value="100"' in html


# --- a survey's own pages: the respondent's language among the survey's ---
def test_not_open_yet_follows_the_respondents_language_among_the_surveys(survey):
    survey = offered_in(survey, "es")
    Survey.objects.filter(pk=survey.pk).update(
        opens_at=timezone.now() + timedelta(days=3)
    )
    url = reverse("collection:consent", args=[survey.public_token])
    spanish = page_text(in_language("es").get(url))
    assert '<html lang="es"' in spanish
    assert "[es] " + survey.title in spanish  # the survey's Spanish title
    # French is not one of its languages: the survey's source, English.
    french = page_text(in_language("fr").get(url))
    assert '<html lang="en"' in french
    assert "This survey is not open yet." in french


def test_a_closed_surveys_page_follows_the_picked_language(survey):
    survey = offered_in(survey, "fr")
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    client = in_language("es")  # not offered
    client.cookies["django_language"] = "fr"
    response = client.get(reverse("collection:consent", args=[survey.public_token]))
    html = page_text(response)
    assert response.status_code == 410
    assert '<html lang="fr"' in html and "[fr] " + survey.title in html
    assert "Cette enquête est close et n’accepte plus de réponses." in html


def test_the_receipt_writes_an_unprotected_number_with_a_decimal_comma(researcher):
    survey = authoring.survey_create(owner=researcher, title="Ages")
    authoring.question_create(
        survey=survey,
        text="Your age?",
        privacy=PrivacyConfig(
            kind="numeric",
            is_private=False,
            low=Decimal("16"),
            high=Decimal("99.5"),
            step=Decimal("0.5"),
        ),
        not_private_acknowledged=True,
    )
    survey = offered_in(authoring.survey_publish(survey=survey, user=researcher), "es")
    question = survey.questions.get()
    client = in_language("es")
    sent = client.post(
        reverse("collection:respond", args=[survey.public_token]),
        {
            "idempotency_key": str(uuid.uuid4()),
            "survey_revision": str(survey.revision),
            f"q{question.pk}": "40.5",
        },
    )
    assert sent.status_code == 303
    html = page_text(client.get(sent["Location"]))
    assert "Usted respondió: <strong>40,5</strong>" in html
    english = page_text(in_language("en").get(sent["Location"]))
    assert "<strong>40.5</strong>" in english
