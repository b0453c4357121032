"""Email invitations and reminders: their texts, and sending them.

A researcher imports recipients' addresses (``recipient_list``); each recipient gets
one one-response invitation (``Invitation``) whose link goes out by email.
Reminders go to recipients whose invitation is unused, who have not
unsubscribed and whose address the mail server did not refuse.

Privacy and the links themselves: ``recipient_list``.

Sending is at most once per recipient and mailing: a recipient is *claimed*
(its counter raised in a conditional update) before its email is handed to the
mail server, so a rerun of the task (``acks_late``, a worker killed) skips it.
A temporary failure (a 4xx reply, a connection error) releases the claim and
the task retries later with exponential backoff; a permanent refusal (5xx) is
recorded on the recipient and never retried.
"""

from __future__ import annotations

import smtplib
from dataclasses import dataclass
from datetime import date, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy

from surveys.authoring.models import Survey
from surveys.authoring.translations import declared_languages
from surveys.collection.models import Recipient
from surveys.invitations.recipient_list import (
    invitation_of,
    token_for,
    unsubscribe_token,
)

LINK = "{link}"
EVERY_LANGUAGE = ""
"""A mailing in every language of the survey (the default), not one picked."""
BLOCKS = "\n\n* * *\n\n"
"""Between one language's text and the next in an email in several languages."""

# An email is in every language of the survey, or in the one language the
# researcher picks for the whole mailing: never in a language chosen per
# recipient, which would tell the server something it could join to a
# submission's language.  See ``mailing_defaults`` and ``_message``.
# Translators: keep {title} and {link} as they are.
DEFAULT_INVITATION_SUBJECT = gettext_lazy("Invitation: {title}")
DEFAULT_INVITATION_BODY = gettext_lazy(
    "Hello,\n\n"
    "You are invited to take part in the survey “{title}”. Your answers to "
    "sensitive questions are randomized on your own device before they are "
    "sent, so nobody (not even the researchers) can know your true answers.\n\n"
    "This link is for you only and works once:\n{link}\n\n"
    "Thank you."
)
DEFAULT_REMINDER_SUBJECT = gettext_lazy("Reminder: {title}")
DEFAULT_REMINDER_BODY = gettext_lazy(
    "Hello,\n\n"
    "A reminder: you are invited to take part in the survey “{title}”. If you "
    "have already answered, please ignore this email (we cannot tell who "
    "answered what, only whether your link was used).\n\n"
    "Your link (it works once):\n{link}\n\n"
    "Thank you."
)


def mailing_languages(survey: Survey, language: str = EVERY_LANGUAGE) -> list[str]:
    """The languages a mailing is written in: the one picked if the survey is
    offered in it, else every language of the survey, its source first."""
    declared = declared_languages(survey)
    return [language] if language in declared else declared


def title_in(survey: Survey, language: str) -> str:
    """The survey's title in ``language`` (its source title when untranslated)."""
    if language == survey.source_language:
        return survey.title
    texts = survey.translations.get(language) or {}
    return texts.get("title") or survey.title


def _braces(text: str) -> str:
    """``text`` as a literal inside a template ({ and } doubled)."""
    return text.replace("{", "{{").replace("}", "}}")


def mailing_defaults(
    kind: str, survey: Survey, language: str = EVERY_LANGUAGE
) -> tuple[str, str]:
    """The subject and text a mailing form starts with, in every language of
    the survey (or the one picked), the first language's with {title}, the
    others with their own title (the researcher then edits them as they like).
    """
    subject, body = (
        (DEFAULT_INVITATION_SUBJECT, DEFAULT_INVITATION_BODY)
        if kind == "invitation"
        else (DEFAULT_REMINDER_SUBJECT, DEFAULT_REMINDER_BODY)
    )
    subjects, bodies = [], []
    for number, code in enumerate(mailing_languages(survey, language)):
        with translation.override(code):
            own_subject, own_body = str(subject), str(body)
        if number:
            title = _braces(title_in(survey, code))
            own_subject = own_subject.replace("{title}", title)
            own_body = own_body.replace("{title}", title)
        subjects.append(own_subject)
        bodies.append(own_body)
    return " / ".join(subjects), BLOCKS.join(bodies)


@dataclass
class MailingResult:
    sent: int = 0
    refused: int = 0


class TemporaryFailure(Exception):
    """The mail server could not take a message now; try again later.

    ``done``: what the run sent and saw refused before it stopped.
    """

    def __init__(self, message: str, done: MailingResult | None = None) -> None:
        super().__init__(message)
        self.done = done or MailingResult()


# --- messages -----------------------------------------------------------------------
def validate_template(subject: str, body: str) -> None:
    """The subject and body of a mailing: ``{link}`` in the body, only the
    placeholders ``{link}`` and ``{title}``."""
    errors: dict[str, list[str]] = {}
    if LINK not in body:
        errors["body"] = [
            gettext("Put {link} in the text where each person's own survey link goes.")
        ]
    for name, text in (("subject", subject), ("body", body)):
        try:
            text.format(link="", title="")
        except (KeyError, IndexError, ValueError):
            errors.setdefault(name, []).append(
                gettext(
                    "Only the placeholders {link} and {title} are allowed; write "
                    "{{ and }} for a literal brace."
                )
            )
    if "\n" in subject or "\r" in subject:
        errors.setdefault("subject", []).append(
            gettext("The subject must be one line.")
        )
    if errors:
        raise ValidationError(errors)


def _message(
    recipient: Recipient,
    survey: Survey,
    base_url: str,
    subject: str,
    body: str,
    language: str = EVERY_LANGUAGE,
) -> EmailMultiAlternatives:
    """One recipient's email: the researcher's subject and text as written,
    {title} in the mailing's first language, the fixed footer in every
    language of the mailing.  Only the links differ from one recipient to the
    next."""
    languages = mailing_languages(survey, language)
    title = title_in(survey, languages[0])
    link = base_url.rstrip("/") + reverse(
        "collection:consent_invitation", args=[token_for(recipient)]
    )
    unsubscribe_url = base_url.rstrip("/") + reverse(
        "collection:unsubscribe", args=[unsubscribe_token(recipient)]
    )
    text = body.format(link=link, title=title)
    unsubscribe_words = []
    for code in languages:
        with translation.override(code):
            unsubscribe_words.append(
                gettext(
                    "You receive this because a researcher added your address to "
                    "this survey. To get no more emails about it: "
                    "%(unsubscribe_url)s"
                )
                % {"unsubscribe_url": unsubscribe_url}
            )
    footer = "\n\n--\n" + "\n".join(unsubscribe_words) + "\n"
    # The HTML alternative (templates/collection/email/mailing.html): the
    # researcher's lines, each cut where the invitation link goes.
    html = render_to_string(
        "collection/email/mailing.html",
        {
            "lines": [
                line.split(LINK)
                for line in body.format(link=LINK, title=title).split("\n")
            ],
            "link": link,
            "unsubscribe_url": unsubscribe_url,
            "languages": languages,
        },
    )
    message = EmailMultiAlternatives(
        subject=subject.format(link="", title=title),
        body=text + footer,
        to=[recipient.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe_url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


# --- sending ------------------------------------------------------------------------
def _candidates(survey: Survey, kind: str, today: date) -> list[int]:
    rows = survey.recipients.filter(address_deleted=False).exclude(email="")
    if kind == "invitation":
        rows = rows.filter(invitations_sent=0, state=Recipient.State.PENDING)
    else:
        gap = timedelta(days=settings.REMINDER_MIN_DAYS)
        rows = rows.filter(
            state=Recipient.State.SENT,
            reminders_sent__lt=settings.REMINDERS_MAX,
            last_sent_on__lte=today - gap,
        ).exclude(invitation__used=True)
    return list(rows.values_list("pk", flat=True))


def _claim(pk: int, kind: str, today: date) -> Recipient | None:
    """Raise the recipient's counter for this mailing if no one else has."""
    rows = Recipient.objects.filter(pk=pk)
    if kind == "invitation":
        claimed = rows.filter(invitations_sent=0, state="pending").update(
            invitations_sent=1, last_sent_on=today
        )
    else:
        claimed = rows.filter(
            reminders_sent__lt=settings.REMINDERS_MAX,
            last_sent_on__lte=today - timedelta(days=settings.REMINDER_MIN_DAYS),
        ).update(reminders_sent=F("reminders_sent") + 1, last_sent_on=today)
    return (
        Recipient.objects.select_related("invitation").get(pk=pk) if claimed else None
    )


def _release(recipient: Recipient, kind: str, previous: date | None) -> None:
    rows = Recipient.objects.filter(pk=recipient.pk)
    if kind == "invitation":
        rows.update(invitations_sent=0, last_sent_on=previous)
    else:
        rows.update(reminders_sent=F("reminders_sent") - 1, last_sent_on=previous)


def _permanent(error: Exception) -> str | None:
    """The server's refusal if ``error`` is permanent (5xx), else None."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        if codes and all(code >= 500 for code in codes):
            code, reply = next(iter(error.recipients.values()))
            return f"{code} {reply.decode(errors='replace')[:150]}"
        return None
    if isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500:
        reply = error.smtp_error
        text = reply.decode(errors="replace") if isinstance(reply, bytes) else reply
        return f"{error.smtp_code} {text[:150]}"
    return None


def mailing_send(
    *,
    survey_id: int,
    kind: str,
    base_url: str,
    subject: str,
    body: str,
    language: str = EVERY_LANGUAGE,
) -> MailingResult:
    """Send one mailing (``invitation`` or ``reminder``) in batches of
    ``EMAIL_BATCH_SIZE``, every email in the same languages (``language``:
    the one picked, or every language of the survey); raises TemporaryFailure
    for the task to retry."""
    if kind not in ("invitation", "reminder"):
        raise ValueError(f"unknown mailing {kind!r}")
    survey = Survey.objects.get(pk=survey_id)
    subject, body = str(subject), str(body)
    today = timezone.localdate()
    result = MailingResult()
    pending = _candidates(survey, kind, today)
    size = settings.EMAIL_BATCH_SIZE
    for start in range(0, len(pending), size):
        connection = get_connection()
        try:
            connection.open()
        except (smtplib.SMTPException, OSError) as error:
            raise TemporaryFailure(f"no connection: {error}"[:200], result) from error
        with connection:
            for pk in pending[start : start + size]:
                previous = (
                    Recipient.objects.filter(pk=pk)
                    .values_list("last_sent_on", flat=True)
                    .first()
                )
                recipient = _claim(pk, kind, today)
                if recipient is None:
                    continue  # sent by an earlier run, or no longer due
                invitation_of(recipient)
                try:
                    connection.send_messages(
                        [_message(recipient, survey, base_url, subject, body, language)]
                    )
                except (smtplib.SMTPException, OSError) as error:
                    refusal = _permanent(error)
                    if refusal is None:
                        _release(recipient, kind, previous)
                        raise TemporaryFailure(str(error)[:200], result) from error
                    Recipient.objects.filter(pk=pk).update(
                        state=Recipient.State.REFUSED,
                        state_on=today,
                        refusal=refusal,
                    )
                    result.refused += 1
                    # The server may have closed the conversation: start anew.
                    connection.close()
                    connection.open()
                    continue
                if kind == "invitation":
                    Recipient.objects.filter(pk=pk, state="pending").update(
                        state=Recipient.State.SENT, state_on=today
                    )
                result.sent += 1
    return result
