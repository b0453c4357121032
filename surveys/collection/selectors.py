"""Reads for collection: what respondents see and what the server holds."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from surveys.authoring.models import Question, Survey
from surveys.collection.models import Invitation, Submission
from surveys.collection.questions import value_label
from surveys.collection.respondent_words import (
    describe_report,
    receipt_why,
)
from surveys.collection.tokens import invitation_token_hash


def surveys_answerable() -> QuerySet[Survey]:
    """Surveys respondents may open (published: open or closed)."""
    return Survey.objects.filter(
        status__in=[Survey.Status.OPEN, Survey.Status.CLOSED]
    ).prefetch_related("questions")


def invitation_by_token(token: str) -> Invitation | None:
    """The invitation a raw token names, looked up by its hash."""
    return (
        Invitation.objects.select_related("survey")
        .filter(token_hash=invitation_token_hash(token))
        .first()
    )


def invitation_counts(*, survey: Survey) -> dict[str, int]:
    """How many invitations a survey has, and how many were used."""
    return survey.invitations.aggregate(
        total=Count("id"), used=Count("id", filter=Q(used_at__isnull=False))
    )


@dataclass(frozen=True)
class ReceiptLine:
    question: Question
    protected: bool
    sent: str

    @property
    def why(self) -> str:
        """Why this line protects the respondent, for the kinds that need it."""
        if not self.protected:
            return ""
        return receipt_why((self.question.spec or {}).get("mechanism", ""))


def submission_receipt(*, submission: Submission) -> list[ReceiptLine]:
    """What the server holds for one submission, question by question.

    Built only from stored rows, so a receipt cannot reveal more than the
    server already holds.
    """
    reports = {r.question_id: r.payload for r in submission.reports.all()}
    plain = {a.question_id: a.value for a in submission.plain_answers.all()}
    lines = []
    for question in submission.survey.questions.all():
        if question.pk in reports:
            sent = describe_report(question, reports[question.pk])
            lines.append(ReceiptLine(question, protected=True, sent=sent))
        elif question.pk in plain:
            value = plain[question.pk]
            if isinstance(value, list):
                sent = ", ".join(value_label(question, v) for v in value)
            elif isinstance(value, int):
                sent = value_label(question, value)
            else:
                sent = str(value)
            lines.append(ReceiptLine(question, protected=False, sent=sent))
    return lines


def submission_by_id(submission_id: int) -> Submission | None:
    return (
        Submission.objects.select_related("survey")
        .prefetch_related("reports", "plain_answers", "survey__questions")
        .filter(pk=submission_id)
        .first()
    )
