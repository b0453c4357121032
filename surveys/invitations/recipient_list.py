"""A survey's recipients: importing their addresses, their one-response links,
unsubscribing, and emptying their addresses after the survey closed.

Privacy (docs/privacy.md): the invitation keeps only whether it was used, with
no time and no key to the submission, so the recipient list says "answered or
not" and nothing about what anyone answered.  Every date kept here is a day.
Addresses are emptied once the survey has been closed for
``RECIPIENT_RETENTION_DAYS``; the counts remain.

The link in every email to one recipient is the same: its token is an HMAC of
the recipient's random salt under a key derived from ``SECRET_KEY``, so a
reminder can repeat it while the database holds only the token's keyed hash
(as for every invitation); reading the database alone gives no working link.
"""

from __future__ import annotations

import base64
import csv
import io
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

from surveys.authoring.models import Survey
from surveys.collection import selectors
from surveys.collection.models import Invitation, Recipient
from surveys.collection.tokens import invitation_token_hash

LINK_PURPOSE = "deniable.recipient-invitation"  # salted_hmac purpose, not a secret

UNSUBSCRIBE_SALT = "deniable.unsubscribe"

CSV_MAX_BYTES = 2_000_000

RECIPIENTS_MAX = 20_000  # per survey

PROBLEMS_SHOWN = 20


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
    """How many recipients are in each state (answered: their link was used
    and the release holding the response is out; reminders read the live
    ``Invitation.used`` instead, ``mailings``)."""
    rows = survey.recipients.all()
    by_state = {s: rows.filter(state=s).count() for s in Recipient.State.values}
    return RecipientCounts(
        total=rows.count(),
        pending=by_state["pending"],
        sent=by_state["sent"],
        # Shown only once released (``selectors.invitation_counts``).
        answered=max(
            0,
            rows.filter(invitation__used=True).count()
            - selectors.invited_responses_held(survey=survey),
        ),
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


def invitation_of(recipient: Recipient) -> Invitation:
    """The recipient's one-response invitation, made on first use."""
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
