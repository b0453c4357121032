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
from surveys.collection.questions import answer_choices, grid_value, value_label
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
    "ordinal": "your device sends a point on the scale drawn at random, more "
    "likely near your answer than far from it",
    "geometric": "your device adds random noise to your number",
    "gaussian": "your device adds random noise to your number",
    "duchi": "your device sends only a random “high” or “low” signal, leaning "
    "towards your number",
    "piecewise": "your device sends a random value, more likely near your number "
    "than far from it",
    "multi_rr": "your device sends one bit per option, each flipped at random",
    "padding_sampling": "your device picks one of your selections (or a padding "
    "item) at random and randomizes it",
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

    @property
    def why(self) -> str:
        """Why this line protects the respondent, for the kinds that need it."""
        if not self.protected:
            return ""
        return RECEIPT_WHY.get((self.question.spec or {}).get("mechanism"), "")


def _labels(question: Question, indices: list[int]) -> str:
    labels = dict(answer_choices(question))
    return ", ".join(labels.get(i, str(i)) for i in indices) or "none"


def _describe_report(question: Question, payload: Any) -> str:
    """What a stored report says, in the question's own labels."""
    spec = question.spec or {}
    mechanism = spec.get("mechanism")
    is_int = isinstance(payload, int) and not isinstance(payload, bool)
    if mechanism in {"forced_response", "warner", "grr", "ordinal"} and is_int:
        return value_label(question, payload)
    if mechanism in {"sue", "oue", "multi_rr"} and isinstance(payload, list):
        marked = [i for i, bit in enumerate(payload) if bit == 1]
        return "bits set for: " + _labels(question, marked)
    if mechanism in {"geometric", "gaussian"} and is_int:
        return f"the value {grid_value(question, payload)}"
    if mechanism == "duchi" and payload in (0, 1) and is_int:
        return (
            "a “high” signal (it leans the estimate up)"
            if payload == 1
            else "a “low” signal (it leans the estimate down)"
        )
    if mechanism == "piecewise" and is_int:
        cells = ldp.build(spec)
        value = float(cells.output_values()[payload])
        return (
            f"output cell {payload + 1} of {cells.outputs}, which stands for "
            f"about {value:.1f}"
        )
    if mechanism == "padding_sampling" and is_int:
        k = spec.get("k", len(question.options))
        if payload < k:
            return "the sampled option " + _labels(question, [payload])
        return "a padding item (it stands for no option)"
    return f"the randomized code {payload!r}"


NUMERIC_WHY = (
    "Your device added randomness to your number, so what it sent may be far "
    "from yours; only averages over many people are meaningful."
)
RECEIPT_WHY = {
    "geometric": NUMERIC_WHY,
    "gaussian": NUMERIC_WHY,
    "duchi": NUMERIC_WHY,
    "piecewise": NUMERIC_WHY,
    "multi_rr": "Each option’s mark was decided partly at random, so the marks "
    "do not show which options you chose.",
    "padding_sampling": "Your device picked one item at random (one of your "
    "choices, or a padding item when you chose fewer than the most allowed) and "
    "then randomized it, so it does not show which options you chose.",
}


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
