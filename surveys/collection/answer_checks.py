"""Checking one submission's answers against its survey before anything is
stored: each report against its question's compiled spec, each plain answer
against its question, display logic and skips.  A problem raises
``SubmissionRejected`` with what was wrong; nothing is stored then.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext

from surveys.authoring import display_logic
from surveys.authoring.kinds import OTHER_TEXT_LIMIT, facts
from surveys.authoring.models import Question, Survey
from surveys.collection import missing, report_codec
from surveys.collection.questions import (
    CHOICE_KINDS,
    answer_choices,
    most_selections,
    other_value,
    typed_text,
)
from surveys.collection.responses import (
    ResponseIn,
    SentReport,
    SubmissionRejected,
)


# --- validation --------------------------------------------------------------------
def _as_values(answer: Any) -> Any:
    """An unprotected choice answer as display logic compares it (ints)."""
    if answer is None or answer == "" or answer == []:
        return None
    try:
        if isinstance(answer, list):
            return [int(value) for value in answer]
        return int(answer)
    except (TypeError, ValueError):
        return None


class AnswerChecker:
    """Validates responses against one survey's current questions."""

    def __init__(self, survey: Survey):
        self.survey = survey
        questions = list(survey.questions.all())
        # What the reports were validated against, re-checked under the lock.
        self.revisions = {q.pk: q.spec_revision for q in questions}
        self.private = {q.pk: q for q in questions if q.is_private}
        self.plain = {q.pk: q for q in questions if not q.is_private}
        self.conditional = [q for q in questions if q.show_if]  # in order
        self.mechanisms = {
            pk: mechanism
            for pk, q in self.private.items()
            if (mechanism := q.compiled_mechanism()) is not None
        }

    def stored(self, pk: int, sent: SentReport) -> dict[str, Any]:
        """The stored columns of a validated report (``report_codec.encode``)."""
        return report_codec.encode(self.private[pk].spec, sent.payload).fields()

    def check(self, response: ResponseIn) -> dict[int, Any]:
        """Raise SubmissionRejected unless the response is whole and valid.

        Returns the plain answers in the form they are stored.
        """
        if response.survey_revision != self.survey.revision:
            raise SubmissionRejected(
                gettext(
                    "This survey was changed after you opened it, so nothing was "
                    "stored. Reload the page to answer the current version."
                ),
                status=409,
                code="stale",
            )
        skipped = self._check_skips(response)
        hidden = self._check_hidden(response, skipped)
        self._same_questions(
            "report", set(response.reports), set(self.private) - skipped - hidden
        )
        self._same_questions(
            "answer",
            set(response.plain_answers),
            set(self.plain) - skipped - hidden,
            plain=True,
        )
        for pk, sent in response.reports.items():
            self._check_report(self.private[pk], sent)
        self._check_other_texts(response)
        return {
            pk: _clean_plain(self.plain[pk], value)
            for pk, value in response.plain_answers.items()
        }

    def _check_other_texts(self, response: ResponseIn) -> None:
        """Words beside "Other, please specify" arrive only with "Other" as
        the answer, as one line of at most ``OTHER_TEXT_LIMIT`` characters."""
        for pk, text in response.other_texts.items():
            question = self.plain.get(pk)
            other = None if question is None else other_value(question)
            answer = _as_values(response.plain_answers.get(pk))
            chosen = answer if isinstance(answer, list) else [answer]
            if other is None or other not in chosen:
                raise SubmissionRejected(
                    "Nothing was stored: words for “Other, please specify” "
                    f"arrived for question id {pk}, whose answer is not “Other”."
                )
            try:
                typed_text(text, lines=False)
            except ValueError:
                raise SubmissionRejected(
                    f"Nothing was stored: the words beside “Other” for "
                    f"“{question.text}” hold a control character."
                ) from None
            if len(text) > OTHER_TEXT_LIMIT:
                raise SubmissionRejected(
                    f"Nothing was stored: the words beside “Other” for "
                    f"“{question.text}” are longer than {OTHER_TEXT_LIMIT} characters."
                )

    def _check_skips(self, response: ResponseIn) -> set[int]:
        """The skipped questions, each an optional question of this survey with
        neither a report nor an answer alongside its marker."""
        skipped = set(response.skipped)
        questions = {**self.private, **self.plain}
        unknown = sorted(skipped - set(questions))
        if unknown:
            raise SubmissionRejected(
                f"Nothing was stored: skips arrived for question ids {unknown}, "
                "which are not questions of this survey."
            )
        required = sorted(pk for pk in skipped if not questions[pk].optional)
        if required:
            texts = "; ".join(f"“{questions[pk].text}”" for pk in required)
            raise SubmissionRejected(
                f"Nothing was stored: {texts} cannot be skipped (not optional). "
                "Every required question needs an answer."
            )
        reasons = {missing.DECLINED, missing.BLANK, missing.UNKNOWN}
        if stray := sorted(set(response.skip_reasons) - skipped):
            raise SubmissionRejected(
                f"Nothing was stored: skip reasons arrived for question ids {stray}, "
                "which were not skipped."
            )
        if odd := sorted(set(response.skip_reasons.values()) - reasons):
            raise SubmissionRejected(
                f"Nothing was stored: {odd} are not reasons for a skip "
                f"(allowed: {sorted(reasons)})."
            )
        both = sorted(skipped & (set(response.reports) | set(response.plain_answers)))
        if both:
            texts = "; ".join(f"“{questions[pk].text}”" for pk in both)
            raise SubmissionRejected(
                f"Nothing was stored: {texts} arrived both skipped and answered."
            )
        return skipped

    def _check_hidden(self, response: ResponseIn, skipped: set[int]) -> set[int]:
        """Questions hidden by display logic, given the unprotected answers
        received; refused if anything (a report, an answer, a skip) arrived
        for one of them."""
        hidden: set[int] = set()
        for question in self.conditional:
            driver = question.show_if.get("question")
            answer = (
                None
                if driver in skipped or driver in hidden
                else response.plain_answers.get(driver)
            )
            if not display_logic.is_shown(question.show_if, _as_values(answer)):
                hidden.add(question.pk)
        sent = set(response.reports) | set(response.plain_answers) | set(skipped)
        if wrong := sorted(hidden & sent):
            questions = {**self.private, **self.plain}
            texts = "; ".join(f"“{questions[pk].text}”" for pk in wrong)
            raise SubmissionRejected(
                f"Nothing was stored: {texts} arrived although not shown (the "
                "answer it depends on does not show it)."
            )
        return hidden

    def _same_questions(
        self, what: str, got: set[int], expected: set[int], plain: bool = False
    ) -> None:
        missing = sorted(expected - got)
        extra = sorted(got - expected)
        if missing:
            questions = self.plain if plain else self.private
            texts = "; ".join(f"“{questions[pk].text}”" for pk in missing)
            raise SubmissionRejected(
                f"Nothing was stored: no {what} arrived for {texts}. Every "
                "question needs an answer."
            )
        if extra:
            raise SubmissionRejected(
                f"Nothing was stored: {what}s arrived for question ids {extra}, "
                f"which are not {'unprotected' if plain else 'private'} "
                "questions of this survey."
            )

    def _check_report(self, question: Question, sent: SentReport) -> None:
        if sent.spec_revision != question.spec_revision:
            raise SubmissionRejected(
                gettext(
                    "The question “%(question)s” was changed after you opened "
                    "the survey, so nothing was stored. Reload the page to answer "
                    "the current version."
                )
                % {"question": question.text},
                status=409,
                code="stale",
            )
        mechanism = self.mechanisms.get(question.pk)
        if mechanism is None:
            raise SubmissionRejected(
                gettext(
                    "The question “%(question)s” has no randomizer yet; the survey "
                    "cannot be answered."
                )
                % {"question": question.text},
                status=409,
                code="unpublished",
            )
        try:
            mechanism.validate_report(sent.payload)
        except ValueError as error:
            raise SubmissionRejected(
                f"Nothing was stored: the report for “{question.text}” is not "
                f"one the randomizer can send ({error})."
            ) from None


def _clean_plain(question: Question, value: Any) -> Any:
    """An unprotected answer in stored form, or SubmissionRejected."""

    def reject(allowed: str) -> SubmissionRejected:
        return SubmissionRejected(
            f"Nothing was stored: the answer {value!r} to “{question.text}” is "
            f"not allowed; allowed: {allowed}."
        )

    if question.kind in CHOICE_KINDS:
        values = [v for v, _ in answer_choices(question)]
        if isinstance(value, bool) or value not in values:
            raise reject(f"one of {values}")
        return int(value)
    if facts(question.kind).several:
        values = {v for v, _ in answer_choices(question)}
        if not isinstance(value, list) or any(
            isinstance(v, bool) or v not in values for v in value
        ):
            raise reject(f"a list of distinct values from {sorted(values)}")
        if len(set(value)) != len(value):
            raise reject(f"a list of distinct values from {sorted(values)}")
        most = most_selections(question)
        if most is not None and len(value) > most:
            raise SubmissionRejected(
                f"Nothing was stored: {len(value)} options were chosen for "
                f"“{question.text}”; at most {most} may be chosen."
            )
        return sorted(int(v) for v in value)
    if facts(question.kind).grid:
        try:
            number = Decimal(str(value))
        except (InvalidOperation, ValueError):
            raise reject("a number") from None
        low, high = question.numeric_low, question.numeric_high
        if not number.is_finite() or (low is not None and number < low):
            raise reject(f"a number from {low} to {high}")
        if high is not None and number > high:
            raise reject(f"a number from {low} to {high}")
        return str(number)
    kind = facts(question.kind)
    if kind.free_text:
        if not isinstance(value, str) or not value.strip():
            raise reject("typed words")
        try:
            text = typed_text(value, lines=kind.text_limit > OTHER_TEXT_LIMIT)
        except ValueError:
            raise reject("words without control characters") from None
        if len(text) > kind.text_limit:
            raise reject(f"at most {kind.text_limit} characters")
        return text
    raise reject("nothing (this kind of question is not supported)")
