"""Reads for collection: what respondents see and what the server holds."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, QuerySet

import ldp
from ldp.accounting import describe_epsilon
from ldp.exact import display_epsilon
from surveys.authoring.models import Question, Survey
from surveys.collection.models import Invitation, Submission
from surveys.collection.questions import answer_choices, value_label
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
class QuestionPrivacy:
    question: Question
    number: int
    protected: bool
    epsilon: Decimal | None = None
    epsilon_display: str = ""
    in_words: str = ""
    mechanism: str = ""


@dataclass(frozen=True)
class SurveyPrivacy:
    questions: list[QuestionPrivacy]
    total_epsilon_display: str
    total_in_words: str

    @property
    def unprotected(self) -> list[QuestionPrivacy]:
        return [q for q in self.questions if not q.protected]


MECHANISM_WORDS = {
    "forced_response": "a coin-flip design: sometimes your device answers "
    "“Yes” or “No” at random instead of your answer",
    "warner": "your device keeps your answer with some probability and "
    "otherwise sends the opposite",
    "grr": "your device keeps your answer with some probability and otherwise "
    "sends one of the other options at random",
    "sue": "your device sends one bit per option, each flipped at random",
    "oue": "your device sends one bit per option, each flipped at random",
    "olh": "your device sends a random hash of your answer, itself randomized",
    "hadamard": "your device sends one randomized bit about a random pattern",
}


def survey_privacy(*, survey: Survey) -> SurveyPrivacy:
    """Each question's ε in plain words, and the total (sequential composition)."""
    entries: list[QuestionPrivacy] = []
    total = Decimal(0)
    for number, question in enumerate(survey.questions.all(), start=1):
        if not question.is_private or not question.spec:
            entries.append(QuestionPrivacy(question, number, protected=False))
            continue
        mechanism = ldp.build(question.spec)
        total += mechanism.epsilon_exact
        entries.append(
            QuestionPrivacy(
                question,
                number,
                protected=True,
                epsilon=mechanism.epsilon_exact,
                epsilon_display=mechanism.epsilon_display,
                in_words=describe_epsilon(mechanism.epsilon_exact),
                mechanism=MECHANISM_WORDS.get(mechanism.name, mechanism.name),
            )
        )
    total_display = display_epsilon(total)
    return SurveyPrivacy(
        questions=entries,
        total_epsilon_display=total_display,
        total_in_words=describe_epsilon(total),
    )


@dataclass(frozen=True)
class ReceiptLine:
    question: Question
    protected: bool
    sent: str


def _describe_report(question: Question, payload: Any) -> str:
    """What a stored report says, in the question's own labels."""
    mechanism = (question.spec or {}).get("mechanism")
    if mechanism in {"forced_response", "warner", "grr"} and isinstance(payload, int):
        return value_label(question, payload)
    if mechanism in {"sue", "oue"} and isinstance(payload, list):
        marked = [
            label
            for (value, label) in answer_choices(question)
            if value < len(payload) and payload[value] == 1
        ]
        return "bits set for: " + (", ".join(marked) if marked else "none")
    return f"the randomized code {payload!r}"


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
            sent = _describe_report(question, reports[question.pk])
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
