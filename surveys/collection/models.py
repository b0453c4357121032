"""What respondents send: submissions of randomized reports.

Privacy invariant: no field here can hold a private question's true answer.
Reports hold only what the respondent's device computed after randomizing.
PlainAnswer exists only for questions the researcher explicitly marked
"not protected" (acknowledged in the builder and shown so to respondents).
"""

from django.db import models

from surveys.authoring.models import Question, Survey


class Invitation(models.Model):
    """A one-response invitation; only a hash of its token is stored."""

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="invitations"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"invitation {self.pk} ({'used' if self.used_at else 'unused'})"


class Submission(models.Model):
    """One respondent's whole submission, stored in one transaction."""

    survey = models.ForeignKey(
        Survey, on_delete=models.PROTECT, related_name="submissions"
    )
    # OneToOne = a database unique constraint: an invitation is used at most once.
    invitation = models.OneToOneField(
        Invitation,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="submission",
    )
    # The browser makes one key per response and resends it on retry, so a retry
    # after a network error finds the stored submission instead of adding one.
    idempotency_key = models.UUIDField()
    survey_revision = models.PositiveIntegerField()
    received_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "idempotency_key"], name="one_submission_per_key"
            ),
        ]

    def __str__(self) -> str:
        return f"submission {self.pk} to survey {self.survey_id}"


class Report(models.Model):
    """A randomized report for one private question (already private)."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="reports"
    )
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="reports"
    )
    spec_revision = models.PositiveIntegerField()
    payload = models.JSONField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "question"], name="one_report_per_question"
            ),
        ]
        indexes = [models.Index(fields=["question", "id"])]

    def __str__(self) -> str:
        return f"report {self.pk} for question {self.question_id}"


class PlainAnswer(models.Model):
    """An answer to a question the researcher marked "not protected"."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="plain_answers"
    )
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="plain_answers"
    )
    value = models.JSONField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "question"], name="one_plain_answer_per_question"
            ),
        ]

    def __str__(self) -> str:
        return f"plain answer {self.pk} for question {self.question_id}"
