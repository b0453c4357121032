"""What respondents send: submissions of randomized reports.

Privacy invariant: no field here can hold a private question's true answer.
Reports hold only what the respondent's device computed after randomizing.
PlainAnswer exists only for questions the researcher explicitly marked
"not protected" (acknowledged in the builder and shown so to respondents).

Unlinkability invariant (docs/privacy.md): nothing here relates an invitation
(or a request) to a submission.  An invitation keeps only whether it was used,
with no time; a submission keeps no key to it, a random public identifier, the
hash of a random receipt code and the time it arrived truncated to
``RECEIVED_AT_GRANULARITY``.  Internal keys stay sequential (the tally watermark
counts reports by id) and never leave the server.
"""

from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from surveys.authoring.models import Question, Survey
from surveys.collection.tokens import (
    HASH_HMAC,
    HASH_LEGACY_SHA256,
    new_public_id,
    new_receipt_code,
    receipt_code_hash,
)

GRANULARITIES = ("day", "hour")


def coarse_time(moment: datetime, granularity: str | None = None) -> datetime:
    """``moment`` truncated (in UTC) to the start of its day or hour.

    ``granularity`` defaults to the ``RECEIVED_AT_GRANULARITY`` setting.
    """
    unit = granularity or getattr(settings, "RECEIVED_AT_GRANULARITY", "day")
    if unit not in GRANULARITIES:
        raise ValueError(
            f"RECEIVED_AT_GRANULARITY is {unit!r}; allowed: {', '.join(GRANULARITIES)}"
        )
    utc = moment.astimezone(UTC)
    utc = utc.replace(minute=0, second=0, microsecond=0)
    return utc.replace(hour=0) if unit == "day" else utc


def received_now() -> datetime:
    """Now, truncated to ``RECEIVED_AT_GRANULARITY`` (how ``received_at`` is stored)."""
    return coarse_time(timezone.now())


def unknown_receipt_hash() -> str:
    """The hash of a receipt code nobody was shown (rows stored without a receipt)."""
    return receipt_code_hash(new_receipt_code())


class Invitation(models.Model):
    """A one-response invitation; only a keyed hash of its token is stored."""

    class HashScheme(models.TextChoices):
        HMAC = HASH_HMAC, "HMAC-SHA256 under a key derived from SECRET_KEY"
        LEGACY_SHA256 = HASH_LEGACY_SHA256, "plain SHA-256 (made before 0.2)"

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="invitations"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    hash_scheme = models.CharField(
        max_length=16, choices=HashScheme.choices, default=HashScheme.HMAC
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Whether it was used, and nothing more: no time, no key to the submission.
    used = models.BooleanField(default=False)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"invitation {self.pk} ({'used' if self.used else 'unused'})"


class Submission(models.Model):
    """One respondent's whole submission, stored in one transaction.

    ``is_test``: sent by the survey's owner in test mode; stored so the owner
    can check what arrives, never counted in results, exports or the target,
    and deleted in one click (``services.test_submissions_delete``).
    """

    survey = models.ForeignKey(
        Survey, on_delete=models.PROTECT, related_name="submissions"
    )
    # The only identifier that leaves the server (exports, the API).
    public_id = models.CharField(max_length=26, unique=True, default=new_public_id)
    # SHA-256 of the random code in the receipt link (the code itself is not kept).
    receipt_hash = models.CharField(
        max_length=64, unique=True, default=unknown_receipt_hash
    )
    # The browser makes one key per response and resends it on retry, so a retry
    # after a network error finds the stored submission instead of adding one.
    idempotency_key = models.UUIDField()
    survey_revision = models.PositiveIntegerField()
    # Stored already truncated to RECEIVED_AT_GRANULARITY (a day by default).
    received_at = models.DateTimeField(default=received_now, db_index=True)
    is_test = models.BooleanField(default=False)
    # The language the respondent read the survey in: empty unless the survey
    # records it (``Survey.record_language``, an unprotected field the consent
    # page announces); which language a person reads tells about them.
    language = models.CharField(max_length=10, blank=True)
    # Whether it is in a release of the survey's results is not stored on it:
    # it is, once its id is at or below the latest results snapshot's
    # ``last_submission_id`` (``analysis.results.release``), so a release
    # writes one row whatever its size.
    # Answered through an invitation link (which one is never stored): lets
    # the invitation pages count a link as used only once its response is
    # released.
    invited = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "idempotency_key"], name="one_submission_per_key"
            ),
            # What reports refer to, survey included (``Report.submission``);
            # its index also finds a survey's latest submission (an export's
            # data version) by one backward step, never a walk through other
            # surveys' later ones.
            models.UniqueConstraint(
                fields=["survey", "id"], name="submission_in_survey"
            ),
        ]

    def __str__(self) -> str:
        return f"submission {self.pk} to survey {self.survey_id}"


class CountedReports(models.Manager["Report"]):
    """Reports that count: every report but those of test submissions.

    ``Report.objects`` (what tallies, results, exports and the API read);
    ``Report.all_objects`` is the default manager (related lookups such as a
    receipt's ``submission.reports``, and deletion, see every report).
    """

    def get_queryset(self) -> "models.QuerySet[Report]":
        return super().get_queryset().filter(is_test=False)


class OptionalBits(models.BinaryField):
    """Bytes or None, stored as an empty byte string instead of NULL.

    ``Report.bits`` is None for every one-value report.  A row with a NULL
    carries a null bitmap, and with the report table's nine columns that
    bitmap takes the row header from 24 to 32 bytes; stored empty, a one-value
    report's row is 8 bytes smaller (docs/architecture.md, "How reports are
    stored").  Python sees None as before: None is written as ``b""`` and the
    column is read through ``NULLIF(bits, '')`` (in the SQL, so reading costs
    no Python call per row); an empty value is never a report's bits (a
    packed report has at least one byte).
    """

    @staticmethod
    def stored(value: Any) -> Any:
        """What the column holds for ``value`` (for SQL written by hand)."""
        return b"" if value is None else value

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False):
        return super().get_db_prep_value(self.stored(value), connection, prepared)

    def select_format(self, compiler: Any, sql: str, params: Any) -> tuple[str, Any]:
        sql, params = super().select_format(compiler, sql, params)
        return f"NULLIF({sql}, %s)", (*params, b"")


class Report(models.Model):
    """A randomized report for one private question (already private).

    Stored compactly (``surveys.collection.report_codec``): a report that is one
    integer (or hadamard's ``[j, bit]``) in ``value``, k bits packed eight to a
    byte (unary encodings, multi-select) or OLH's ``[a, b, y]`` in ``bits``;
    exactly one of the two is set.  ``report_codec.decode(spec, value, bits)``
    gives back the JSON report the device sent.
    """

    # No index of their own: the unique (submission, question) and the
    # (question, id) indexes below lead with these columns and serve every
    # lookup, join and cascade by them (two indexes fewer to write per report).
    # The database's foreign key is ``(submission_id, survey_id)`` to the
    # submission's ``(id, survey_id)`` (migration ``0019``), so it carries the
    # survey as every key of the report table does (a distributed database
    # needs its foreign keys to include the distribution column).
    submission = models.ForeignKey(
        Submission,
        on_delete=models.CASCADE,
        related_name="reports",
        db_index=False,
        db_constraint=False,
    )
    # DO_NOTHING, not PROTECT: Django's collector would look for reports by
    # question id before deleting a question, a read of every partition.  The
    # database's own foreign key still refuses (at commit) to delete a question
    # that has reports; deleting a survey deletes its reports by survey first
    # (one partition), and a question of a survey with submissions is never
    # deleted (``authoring.services.question_delete`` refuses).
    question = models.ForeignKey(
        Question, on_delete=models.DO_NOTHING, related_name="reports", db_index=False
    )
    # Its submission's survey, kept here as the partition key: on PostgreSQL the
    # table is partitioned by hash of ``survey_id`` (``partitioning``), so every
    # read and write that names the survey touches one partition.  Every key
    # and unique constraint includes it, as partitioning requires.
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    spec_revision = models.PositiveIntegerField()
    # Exactly one of the two (the check constraint below), per mechanism.
    value = models.PositiveIntegerField(null=True, blank=True)
    bits = OptionalBits(blank=True, default=None)  # NOT NULL: b"" when none
    # The only identifier of a report that leaves the server.  Unique by a
    # constraint rather than ``unique=True``, which on PostgreSQL also builds a
    # second, pattern-matching index that no query uses.
    public_id = models.CharField(max_length=26, default=new_public_id)
    # Its submission's ``is_test``, kept here so counting reads need no join.
    is_test = models.BooleanField(default=False)

    all_objects = models.Manager()
    objects = CountedReports()

    class Meta:
        default_manager_name = "all_objects"
        ordering = ["id"]
        constraints = [
            # Led by submission (lookups and cascades by it); survey only
            # because a partitioned table's unique keys need the partition key
            # (a submission has one survey, so the meaning is unchanged).
            models.UniqueConstraint(
                fields=["submission", "question", "survey"],
                name="one_report_per_question",
            ),
            # Unique within a survey (the partition key again; 128 random bits
            # make a repeat across surveys as unlikely as within one).  Led by
            # survey: its index serves exports' pages in public-id order.
            models.UniqueConstraint(
                fields=["survey", "public_id"], name="report_public_id"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(value__isnull=False, bits=b"")
                    | (models.Q(value__isnull=True) & ~models.Q(bits=b""))
                ),
                name="report_value_or_bits",
            ),
        ]
        indexes = [models.Index(fields=["question", "id"])]

    def __str__(self) -> str:
        return f"report {self.pk} for question {self.question_id}"


class PlainAnswer(models.Model):
    """An answer to a question the researcher marked "not protected"."""

    # The database's foreign key is ``(submission_id, survey_id)`` to the
    # submission's ``(id, survey_id)`` (migration ``0020``): every key of the
    # tables holding a respondent's data carries the survey, as the report
    # table's do (docs/scaling.md, section 2.2).
    submission = models.ForeignKey(
        Submission,
        on_delete=models.CASCADE,
        related_name="plain_answers",
        db_index=False,
        db_constraint=False,
    )
    # Its submission's survey (the distribution column; says nothing the
    # question does not).
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="plain_answers"
    )
    value = models.JSONField()
    # "Other, please specify": the words typed beside the "Other" answer, as
    # typed (empty unless that answer was chosen).
    other_text = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "question", "survey"],
                name="one_plain_answer_per_question",
            ),
        ]

    def __str__(self) -> str:
        return f"plain answer {self.pk} for question {self.question_id}"


class SkippedAnswer(models.Model):
    """An optional question shown to the respondent and not answered.

    Only the marker is stored: no report and no answer exist for the question
    in this submission, so its estimates use the n of the reports received.
    ``reason`` tells how (``Reason``): declined ("Prefer not to answer"), left
    blank, or, for markers stored before the device told the two apart,
    unknown.  A question hidden by display logic has no row at all
    (``surveys.collection.missing`` names the four outcomes and their codes).
    """

    class Reason(models.TextChoices):
        DECLINED = "declined", "declined (“Prefer not to answer”)"
        BLANK = "blank", "left blank"
        UNKNOWN = "unknown", "declined or left blank (unknown)"

    # The database's foreign key is ``(submission_id, survey_id)`` to the
    # submission's ``(id, survey_id)`` (migration ``0020``): every key of the
    # tables holding a respondent's data carries the survey, as the report
    # table's do (docs/scaling.md, section 2.2).
    submission = models.ForeignKey(
        Submission,
        on_delete=models.CASCADE,
        related_name="skipped_answers",
        db_index=False,
        db_constraint=False,
    )
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="skipped_answers"
    )
    reason = models.CharField(max_length=8, choices=Reason.choices)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "question", "survey"],
                name="one_skip_per_question",
            ),
        ]

    def __str__(self) -> str:
        return f"skip ({self.reason}) {self.pk} of question {self.question_id}"


LINK_VALUE_MAX = 100


class LinkValue(models.Model):
    """A URL parameter the survey records from its link (``Survey.link_fields``),
    stored as it was sent: it identifies the respondent to the researcher, as
    the consent page says.  Deleted with its submission (withdrawal) and survey.
    """

    # The database's foreign key is ``(submission_id, survey_id)`` to the
    # submission's ``(id, survey_id)`` (migration ``0020``): every key of the
    # tables holding a respondent's data carries the survey, as the report
    # table's do (docs/scaling.md, section 2.2).
    submission = models.ForeignKey(
        Submission,
        on_delete=models.CASCADE,
        related_name="link_values",
        db_index=False,
        db_constraint=False,
    )
    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    name = models.CharField(max_length=32)
    value = models.CharField(max_length=LINK_VALUE_MAX)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "name", "survey"],
                name="one_link_value_per_name",
            ),
        ]

    def __str__(self) -> str:
        return f"link value {self.name} of submission {self.submission_id}"


def new_recipient_salt() -> str:
    """Random input to a recipient's invitation token (``mailings.token_for``)."""
    import secrets

    return secrets.token_hex(16)


class Recipient(models.Model):
    """A person invited by email to a survey (``surveys.invitations.mailings``).

    Privacy: a recipient holds an email address and one one-response
    invitation; "answered" is read from that invitation's ``used`` flag, which
    keeps no time and no key to the submission.  Dates are days
    (``DateField``): nothing here records when, within a day, an email went out
    or an address was changed.  ``email`` is emptied (``address_deleted``) once
    the survey has been closed for ``RECIPIENT_RETENTION_DAYS``, and at once
    when the survey is deleted (cascade); the counts survive.
    """

    class State(models.TextChoices):
        PENDING = "pending", "not sent yet"
        SENT = "sent", "sent"
        REFUSED = "refused", "refused by the mail server"
        UNSUBSCRIBED = "unsubscribed", "unsubscribed"

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="recipients"
    )
    email = models.EmailField(max_length=254, blank=True)
    address_deleted = models.BooleanField(default=False)
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.PENDING
    )
    # The day of the last change of state (never a finer time).
    state_on = models.DateField(default=timezone.localdate)
    # Secret input to the invitation token, so that a reminder can repeat the
    # link of the first email while the database keeps only the token's hash.
    salt = models.CharField(max_length=32, default=new_recipient_salt)
    invitation = models.OneToOneField(
        Invitation, on_delete=models.SET_NULL, null=True, blank=True
    )
    invitations_sent = models.PositiveSmallIntegerField(default=0)
    reminders_sent = models.PositiveSmallIntegerField(default=0)
    last_sent_on = models.DateField(null=True, blank=True)
    refusal = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "email"],
                condition=~models.Q(email=""),
                name="one_recipient_per_address",
            ),
        ]

    def __str__(self) -> str:
        return f"recipient {self.pk} of survey {self.survey_id}: {self.state}"
