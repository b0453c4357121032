"""Invitation and reminder emails carry every language of the survey, or the
one the researcher picks for the whole mailing: never a language chosen per
recipient, which the server could join to a submission's language."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from surveys.invitations import mailings, recipient_list, tasks
from tests.surveys.collection.conftest import offered_in

pytestmark = pytest.mark.django_db

BASE = "https://surveys.example.org"
PEOPLE = ["ana@example.org", "ben@example.org", "cai@example.org"]
TOKENS = re.compile(r"/s/(?:i|unsubscribe)/[\w:-]+/?|/[\w-]{20,}/")
# One sentence of each language's default invitation.
INVITED = {
    "en": "You are invited to take part in the survey",
    "es": "Le invitamos a participar en la encuesta",
    "fr": "Vous êtes invité(e) à participer à l’enquête",
}
FOOTER = {
    "en": "You receive this because a researcher added your address",
    "es": "Recibe este mensaje porque",
    "fr": "Vous recevez ce message parce qu’une équipe de recherche",
}


@pytest.fixture
def multilingual(survey):
    offered = offered_in(survey, "es", "fr")
    recipient_list.recipients_add(survey=offered, emails=PEOPLE)
    return offered


def send(survey, kind="invitation", language=mailings.EVERY_LANGUAGE):
    subject, body = mailings.mailing_defaults(kind, survey, language)
    return tasks.send_mailing.delay(
        survey.pk, kind, BASE, subject, body, language
    ).result


def without_links(message) -> tuple[str, str, str]:
    html = message.alternatives[0][0]
    return (
        message.subject,
        TOKENS.sub("/LINK/", message.body),
        TOKENS.sub("/LINK/", html),
    )


def test_the_default_invitation_speaks_every_language_of_the_survey(multilingual):
    assert send(multilingual) == {"sent": 3, "refused": 0}
    for message in mail.outbox:
        for language in ("en", "es", "fr"):
            assert INVITED[language] in message.body
            assert FOOTER[language] in message.body
        assert f"[fr] {multilingual.title}" in message.subject
        assert f"[es] {multilingual.title}" in message.body


def test_every_recipient_gets_the_same_email_but_for_their_own_links(multilingual):
    send(multilingual)
    send_reminder_later = without_links(mail.outbox[0])
    assert all(without_links(m) == send_reminder_later for m in mail.outbox)
    links = {re.search(r"https://\S+/s/i/\S+", m.body).group(0) for m in mail.outbox}
    assert len(links) == len(PEOPLE)


@pytest.mark.parametrize("language", ["es", "fr"])
def test_a_mailing_in_one_picked_language_is_in_that_language_only(
    multilingual, language
):
    send(multilingual, language=language)
    others = {"en", "es", "fr"} - {language}
    for message in mail.outbox:
        html = message.alternatives[0][0]
        assert INVITED[language] in message.body
        assert FOOTER[language] in message.body
        assert f"[{language}] {multilingual.title}" in message.subject
        assert f'lang="{language}"' in html
        for other in others:
            assert INVITED[other] not in message.body
            assert FOOTER[other] not in message.body + html


def test_a_survey_in_one_language_sends_that_language_alone(survey):
    recipient_list.recipients_add(survey=survey, emails=PEOPLE[:1])
    subject, body = mailings.mailing_defaults("reminder", survey)
    assert subject == "Reminder: {title}"
    assert mailings.BLOCKS not in body


def test_the_page_offers_the_languages_and_sends_the_picked_one(
    multilingual, researcher
):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(researcher)
    url = reverse("collection:recipients", args=[multilingual.pk])
    every = client.get(url).content.decode()
    assert 'id="mail-language-form"' in every
    assert INVITED["es"] in every and INVITED["fr"] in every
    page = client.get(url, {"language": "fr"}).content.decode()
    assert INVITED["fr"] in page and INVITED["en"] not in page
    assert 'name="invitation-language" value="fr"' in page
    subject, body = mailings.mailing_defaults("invitation", multilingual, "fr")
    client.post(
        reverse("collection:recipients_send", args=[multilingual.pk]),
        {
            "invitation-kind": "invitation",
            "invitation-language": "fr",
            "invitation-subject": subject,
            "invitation-body": body,
        },
    )
    assert len(mail.outbox) == len(PEOPLE)
    assert all(
        FOOTER["fr"] in m.body and FOOTER["en"] not in m.body for m in mail.outbox
    )


def test_a_language_the_survey_is_not_offered_in_is_not_sent(multilingual, researcher):
    client = Client()
    client.force_login(researcher)
    response = client.post(
        reverse("collection:recipients_send", args=[multilingual.pk]),
        {
            "invitation-kind": "invitation",
            "invitation-language": "ar",
            "invitation-subject": "Hi",
            "invitation-body": "Go {link}",
        },
    )
    assert response.status_code == 400
    assert mail.outbox == []
