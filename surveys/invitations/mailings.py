"""Email invitations and reminders: recipients, sending, unsubscribing, retention.

A researcher imports recipients' addresses from a CSV file; each recipient gets
one one-response invitation (``Invitation``) whose link goes out by email.
Reminders go to recipients whose invitation is unused, who have not
unsubscribed and whose address the mail server did not refuse.

Privacy (docs/privacy.md): the invitation keeps only whether it was used, with
no time and no key to the submission, so the recipient list says "answered or
not" and nothing about what anyone answered.  Every date kept here is a day.
Addresses are emptied once the survey has been closed for
``RECIPIENT_RETENTION_DAYS``; the counts remain.

The link in every email to one recipient is the same: its token is an HMAC of
the recipient's random salt under a key derived from ``SECRET_KEY``, so a
reminder can repeat it while the database holds only the token's keyed hash
(as for every invitation); reading the database alone gives no working link.

Sending is at most once per recipient and mailing: a recipient is *claimed*
(its counter raised in a conditional update) before its email is handed to the
mail server, so a rerun of the task (``acks_late``, a worker killed) skips it.
A temporary failure (a 4xx reply, a connection error) releases the claim and
the task retries later with exponential backoff; a permanent refusal (5xx) is
recorded on the recipient and never retried.
"""

from __future__ import annotations

import base64
import csv
import io
import smtplib
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives, get_connection
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy, ngettext

from surveys.authoring.models import Survey
from surveys.collection.models import Invitation, Recipient
from surveys.collection.tokens import invitation_token_hash

LINK_PURPOSE = "deniable.recipient-invitation"  # salted_hmac purpose, not a secret
UNSUBSCRIBE_SALT = "deniable.unsubscribe"
CSV_MAX_BYTES = 2_000_000
RECIPIENTS_MAX = 20_000  # per survey
PROBLEMS_SHOWN = 20
LINK = "{link}"

# The fixed texts of an email are in the survey's source language (the language
# the researcher wrote it in for this audience): see ``mailing_defaults`` and
# ``_message``.  Translators: keep {title} and {link} as they are.
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


def mailing_defaults(kind: str, survey: Survey) -> tuple[str, str]:
    """The subject and text a mailing form starts with, in the survey's source
    language (the researcher then edits them as they like)."""
    subject, body = (
        (DEFAULT_INVITATION_SUBJECT, DEFAULT_INVITATION_BODY)
        if kind == "invitation"
        else (DEFAULT_REMINDER_SUBJECT, DEFAULT_REMINDER_BODY)
    )
    with translation.override(survey.source_language):
        return str(subject), str(body)


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


# --- recipients ---------------------------------------------------------------------
@dataclass
class RecipientsFile:
    """The addresses read from an uploaded CSV file, before anything is stored."""

    emails: list[str] = field(default_factory=list)
    duplicates_in_file: int = 0


def too_big_words(size: int) -> str:
    """Why a file of ``size`` bytes is refused, in the active language."""
    return gettext(
        "The file is %(size)s bytes; allowed: at most %(most)s. Nothing was imported."
    ) % {
        "size": number_format(size, force_grouping=True),
        "most": number_format(CSV_MAX_BYTES, force_grouping=True),
    }


def parse_recipients_csv(raw: bytes) -> RecipientsFile:
    """Addresses from a CSV file: a column headed ``email`` (any case) or a
    single column with or without a header; UTF-8 with or without a BOM.
    Raises ValidationError naming every bad line (up to PROBLEMS_SHOWN)."""
    if len(raw) > CSV_MAX_BYTES:
        raise ValidationError(too_big_words(len(raw)))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValidationError(
            gettext(
                "The file is not UTF-8 text (byte %(byte)s). Save it as "
                "“CSV UTF-8” and try again. Nothing was imported."
            )
            % {"byte": error.start}
        ) from None
    rows = list(csv.reader(io.StringIO(text)))
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise ValidationError(
            gettext("The file has no addresses. Nothing was imported.")
        )
    header = [cell.strip().casefold() for cell in rows[0]]
    if "email" in header:
        column, start = header.index("email"), 1
    elif len(header) == 1:
        column, start = 0, 0
    else:
        raise ValidationError(
            gettext(
                "The file has several columns but none is headed “email”. Name "
                "the column of addresses “email”. Nothing was imported."
            )
        )
    found = RecipientsFile()
    seen: set[str] = set()
    problems = []
    for line, row in enumerate(rows[start:], start=start + 1):
        value = row[column].strip() if column < len(row) else ""
        try:
            validate_email(value)
        except ValidationError:
            problems.append(
                gettext("Line %(line)s: “%(value)s” is not an email address.")
                % {"line": line, "value": value[:80]}
            )
            continue
        key = value.casefold()
        if key in seen:
            found.duplicates_in_file += 1
            continue
        seen.add(key)
        found.emails.append(value)
    if problems:
        more = len(problems) - PROBLEMS_SHOWN
        shown = problems[:PROBLEMS_SHOWN]
        if more > 0:
            shown.append(
                ngettext("…and %(more)s more line.", "…and %(more)s more lines.", more)
                % {"more": number_format(more, force_grouping=True)}
            )
        raise ValidationError([*shown, gettext("Nothing was imported.")])
    return found


@transaction.atomic
def recipients_add(*, survey: Survey, emails: list[str]) -> tuple[int, int]:
    """Store new recipients; returns (added, already on the list)."""
    Survey.objects.select_for_update().filter(pk=survey.pk).first()
    existing = {
        e.casefold()
        for e in survey.recipients.exclude(email="").values_list("email", flat=True)
    }
    new = [e for e in emails if e.casefold() not in existing]
    total = survey.recipients.count() + len(new)
    if total > RECIPIENTS_MAX:
        raise ValidationError(
            gettext(
                "The survey would have %(total)s recipients; allowed: at most "
                "%(most)s. Nothing was imported."
            )
            % {
                "total": number_format(total, force_grouping=True),
                "most": number_format(RECIPIENTS_MAX, force_grouping=True),
            }
        )
    Recipient.objects.bulk_create(Recipient(survey=survey, email=e) for e in new)
    return len(new), len(emails) - len(new)


@dataclass(frozen=True)
class RecipientCounts:
    total: int
    pending: int
    sent: int
    answered: int
    refused: int
    unsubscribed: int
    reminders: int
    addresses_deleted: int


def recipient_counts(*, survey: Survey) -> RecipientCounts:
    """How many recipients are in each state (answered: their link was used)."""
    rows = survey.recipients.all()
    by_state = {s: rows.filter(state=s).count() for s in Recipient.State.values}
    return RecipientCounts(
        total=rows.count(),
        pending=by_state["pending"],
        sent=by_state["sent"],
        answered=rows.filter(invitation__used=True).count(),
        refused=by_state["refused"],
        unsubscribed=by_state["unsubscribed"],
        reminders=sum(rows.values_list("reminders_sent", flat=True)),
        addresses_deleted=rows.filter(address_deleted=True).count(),
    )


# --- links --------------------------------------------------------------------------
def token_for(recipient: Recipient) -> str:
    """The recipient's invitation token: HMAC-SHA256 of its salt under a key
    derived from ``SECRET_KEY`` (Django's ``salted_hmac``), base64url."""
    digest = salted_hmac(
        LINK_PURPOSE, recipient.salt, secret=settings.SECRET_KEY, algorithm="sha256"
    ).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _invitation(recipient: Recipient) -> Invitation:
    if recipient.invitation_id is None:
        recipient.invitation = Invitation.objects.create(
            survey_id=recipient.survey_id,
            token_hash=invitation_token_hash(token_for(recipient)),
        )
        recipient.save(update_fields=["invitation"])
    return recipient.invitation


def unsubscribe_token(recipient: Recipient) -> str:
    return signing.dumps(recipient.pk, salt=UNSUBSCRIBE_SALT)


def recipient_from_unsubscribe_token(token: str) -> Recipient | None:
    try:
        pk = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return Recipient.objects.filter(pk=pk).first() if isinstance(pk, int) else None


def unsubscribe(recipient: Recipient) -> None:
    """No more email to this recipient (idempotent)."""
    Recipient.objects.filter(pk=recipient.pk).exclude(state="unsubscribed").update(
        state=Recipient.State.UNSUBSCRIBED, state_on=timezone.localdate()
    )


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
    recipient: Recipient, survey: Survey, base_url: str, subject: str, body: str
) -> EmailMultiAlternatives:
    """One recipient's email: the researcher's subject and text as written, the
    fixed footer in the survey's source language."""
    with translation.override(survey.source_language):
        return _message_in_language(recipient, survey, base_url, subject, body)


def _message_in_language(
    recipient: Recipient, survey: Survey, base_url: str, subject: str, body: str
) -> EmailMultiAlternatives:
    link = base_url.rstrip("/") + reverse(
        "collection:consent_invitation", args=[token_for(recipient)]
    )
    unsubscribe_url = base_url.rstrip("/") + reverse(
        "collection:unsubscribe", args=[unsubscribe_token(recipient)]
    )
    text = body.format(link=link, title=survey.title)
    unsubscribe_words = gettext(
        "You receive this because a researcher added your address to this "
        "survey. To get no more emails about it: %(unsubscribe_url)s"
    ) % {"unsubscribe_url": unsubscribe_url}
    footer = f"\n\n--\n{unsubscribe_words}\n"
    # The HTML alternative (templates/collection/email/mailing.html): the
    # researcher's lines, each cut where the invitation link goes.
    html = render_to_string(
        "collection/email/mailing.html",
        {
            "lines": [
                line.split(LINK)
                for line in body.format(link=LINK, title=survey.title).split("\n")
            ],
            "link": link,
            "unsubscribe_url": unsubscribe_url,
        },
    )
    message = EmailMultiAlternatives(
        subject=subject.format(link="", title=survey.title),
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
    *, survey_id: int, kind: str, base_url: str, subject: str, body: str
) -> MailingResult:
    """Send one mailing (``invitation`` or ``reminder``) in batches of
    ``EMAIL_BATCH_SIZE``; raises TemporaryFailure for the task to retry."""
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
                _invitation(recipient)
                try:
                    connection.send_messages(
                        [_message(recipient, survey, base_url, subject, body)]
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


# --- retention ----------------------------------------------------------------------
def closed_since(survey: Survey) -> date | None:
    """The day the survey stopped taking answers, if it has."""
    now = timezone.now()
    if survey.status == Survey.Status.CLOSED and survey.closed_at:
        return timezone.localdate(survey.closed_at)
    if survey.closes_at and survey.closes_at <= now:
        return timezone.localdate(survey.closes_at)
    return None


def purge_addresses(today: date | None = None) -> int:
    """Empty the addresses of recipients of surveys closed for longer than
    ``RECIPIENT_RETENTION_DAYS``; returns how many were emptied."""
    today = today or timezone.localdate()
    keep = timedelta(days=settings.RECIPIENT_RETENTION_DAYS)
    surveys = Survey.objects.filter(
        Q(status=Survey.Status.CLOSED) | Q(closes_at__isnull=False),
        recipients__address_deleted=False,
    ).distinct()
    emptied = 0
    for survey in surveys:
        since = closed_since(survey)
        if since is None or today - since < keep:
            continue
        emptied += survey.recipients.filter(address_deleted=False).update(
            email="", address_deleted=True
        )
    return emptied
