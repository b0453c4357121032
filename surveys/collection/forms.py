"""The respondent's form, built from a survey.

Privacy invariant (its fields, ``answer_fields``): a private question's true
answer is never submitted, only the report its device computed.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_lazy

from surveys.authoring import display_logic
from surveys.authoring.kinds import facts
from surveys.authoring.models import Question, Survey
from surveys.collection import missing
from surveys.collection.answer_fields import (
    LINK_PREFIX,
    NO_REPORT,
    PLEASE_ANSWER,
    AnswerInputs,
    DeviceOnlyField,
    LinkValueField,
    NumberOnDevice,
    ReportField,
    SkipField,
)
from surveys.collection.answer_layout import QuestionBlock, SectionBlock, mark_grids
from surveys.collection.device_config import device_config
from surveys.collection.plain_fields import (
    OTHER_SUFFIX,
    other_field,
    plain_field,
)
from surveys.collection.questions import (
    PRIVATE_KINDS,
    grid,
    most_selections,
    other_value,
    shown_choices,
)
from surveys.collection.responses import ResponseIn, SentReport
from surveys.expected_fields import CSRF_FIELD, ExpectedFieldsMixin

NOT_SHOWN_BUT_SENT = gettext_lazy(
    "“%(question)s” was not shown (it is shown only for some answers to "
    "“%(driver)s”), yet something arrived for it; nothing was stored. Reload the "
    "page and answer again."
)
SKIPPED_AND_ANSWERED = gettext_lazy(
    "“%(question)s” arrived both answered and marked “Prefer not to answer”; "
    "nothing was stored. Choose one of the two."
)
SKIP_NOT_ALLOWED = gettext_lazy(
    "“%(question)s” needs an answer: it is not optional, so it cannot be "
    "skipped; nothing was stored."
)
TRUE_ANSWER_SENT = gettext_lazy(
    "Nothing was stored: the answer to “%(question)s” arrived as given, but it "
    "is a protected question, so only its randomized report may be sent. Reload "
    "the page and answer again."
)
# The signed "page loaded while open" stamp (lifecycle's grace period): read by
# the view, never stored.
OPEN_STAMP_FIELD = "opened"


class ResponseForm(ExpectedFieldsMixin, forms.Form):
    """Everything one respondent submits for one survey, and nothing else.

    The fields it expects are its own minus the true answers of protected
    questions (shown on the page, never received), plus the CSRF token and
    the open stamp; anything else posted is refused (``ExpectedFieldsMixin``).
    """

    also_expected = frozenset({CSRF_FIELD, OPEN_STAMP_FIELD})

    idempotency_key = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={
            "required": "The submission key is missing.",
            "invalid": "The submission key is not a UUID.",
        },
    )
    survey_revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)

    def clean_idempotency_key(self) -> Any:
        """Only a random (version 4) UUID is stored: the other versions carry a
        time or a machine's address (RFC 9562, section 5), which would link."""
        key = self.cleaned_data["idempotency_key"]
        if key.version != 4:
            raise forms.ValidationError(
                "The submission key must be a random (version 4) UUID."
            )
        return key

    def __init__(
        self,
        *args: Any,
        survey: Survey,
        link_values: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.survey = survey
        self.questions = list(survey.questions.all())
        self.fields["survey_revision"].initial = survey.revision
        self._add_question_fields(link_values)

    def _add_question_fields(self, link_values: Mapping[str, str] | None) -> None:
        """The link fields' and the questions' fields of ``self.survey``."""
        survey = self.survey
        for name in survey.link_fields:
            self.fields[f"{LINK_PREFIX}{name}"] = LinkValueField(
                name, survey.link_fields, initial=(link_values or {}).get(name, "")
            )
        for question in self.questions:
            if question.is_private:
                self._add_private(question)
            else:
                self._add_plain(question)
            if question.optional:
                self._add_skip(question)
            if question.show_if:
                self._make_conditional(question)

    # --- building -----------------------------------------------------------
    def _add_private(self, question: Question) -> None:
        if question.kind not in PRIVATE_KINDS:
            raise ValueError(
                f"question {question.pk} is a private {question.kind!r} question; "
                f"the browser can randomize only {sorted(PRIVATE_KINDS)}"
            )
        prefix = f"q{question.pk}"
        widget: forms.Widget
        if facts(question.kind).grid:
            bounds = grid(question)
            if bounds is None:
                raise ValueError(f"question {question.pk} has no numeric grid")
            widget = NumberOnDevice(*bounds)
        else:
            widget = AnswerInputs(
                shown_choices(question),
                multiple=facts(question.kind).several,
                named=False,
                most=most_selections(question),
            )
        self.fields[f"{prefix}_answer"] = DeviceOnlyField(
            label=question.text, widget=widget
        )
        self.fields[f"{prefix}_report"] = ReportField(question)
        self.fields[f"{prefix}_spec_revision"] = forms.IntegerField(
            widget=forms.HiddenInput, initial=question.spec_revision, min_value=1
        )

    def _add_skip(self, question: Question) -> None:
        """An optional question: its "Prefer not to answer" marker, and its
        report or answer no longer required (``clean`` checks one or the other)."""
        prefix = f"q{question.pk}"
        self.fields[f"{prefix}_skipped"] = SkipField(question)
        answer = f"{prefix}_report" if question.is_private else prefix
        self.fields[answer].required = False
        self.fields[answer].widget.is_required = False
        if question.is_private:
            self.fields[f"{prefix}_spec_revision"].required = False

    def _make_conditional(self, question: Question) -> None:
        """A question with display logic: required only when shown (``clean``)."""
        prefix = f"q{question.pk}"
        names = (
            [f"{prefix}_report", f"{prefix}_spec_revision"]
            if question.is_private
            else [prefix]
        )
        for name in names:
            self.fields[name].required = False
        if not question.is_private:
            # Hidden, it needs no answer; shown, the device asks for one.
            self.fields[prefix].widget.is_required = False

    def _sent_anything(self, question: Question) -> bool:
        prefix = f"q{question.pk}"
        names = [f"{prefix}_skipped"]
        names.append(f"{prefix}_report" if question.is_private else prefix)
        return any(
            value not in ("", None)
            for name in names
            for value in (
                self.data.getlist(name)
                if hasattr(self.data, "getlist")
                else [self.data.get(name)]
            )
        )

    def hidden(self) -> frozenset[int]:
        """Questions not shown to this respondent: their display logic's
        unprotected answer (as received) is not one that shows them."""
        data = getattr(self, "cleaned_data", {})
        skipped = {
            q.pk
            for q in self.questions
            if q.optional and data.get(f"q{q.pk}_skipped") in missing.MARKERS.values()
        }
        hidden: set[int] = set()
        for question in self.questions:  # in order: a driver comes first
            if not question.show_if:
                continue
            driver = question.show_if.get("question")
            answer = (
                None
                if driver in skipped or driver in hidden
                else data.get(f"q{driver}")
            )
            if answer in ("", []):
                answer = None
            if not display_logic.is_shown(question.show_if, answer):
                hidden.add(question.pk)
        return frozenset(hidden)

    def _check_conditions(self, data: dict[str, Any]) -> frozenset[int]:
        """Hidden questions arrive with nothing; shown required ones answered."""
        hidden = self.hidden()
        texts = {q.pk: q.text for q in self.questions}
        for question in self.questions:
            if not question.show_if:
                continue
            prefix = f"q{question.pk}"
            answer = f"{prefix}_report" if question.is_private else prefix
            if question.pk in hidden:
                if self._sent_anything(question):
                    self.add_error(
                        None,
                        NOT_SHOWN_BUT_SENT
                        % {
                            "question": question.text,
                            "driver": texts.get(question.show_if.get("question"), ""),
                        },
                    )
                continue
            if question.optional or answer in self.errors:
                continue
            given = data.get(answer) not in (None, "")
            if facts(question.kind).several and not question.is_private:
                continue  # no option ticked is an answer: "none of these"
            if not given:
                message = (
                    NO_REPORT % {"question": question.text}
                    if question.is_private
                    else PLEASE_ANSWER % {"question": question.text}
                )
                self.add_error(answer, message)
            elif question.is_private and data.get(f"{prefix}_spec_revision") is None:
                self.add_error(
                    f"{prefix}_spec_revision",
                    f"The report for “{question.text}” arrived without its spec "
                    "revision; nothing was stored. Reload the page and answer again.",
                )
        return hidden

    def expected_fields(self) -> set[str]:
        """Every field but the true answers of protected questions."""
        return {
            name
            for name, field in self.fields.items()
            if not isinstance(field, DeviceOnlyField)
        } | set(self.also_expected)

    def explained_unexpected(self, names: list[str]) -> list[str]:
        """A protected question's answer sent as given, or a skip marker for
        a question that is not optional, is refused in words of its own; an
        undeclared link field is worded by ``clean``."""
        questions = {}
        for question in self.questions:
            prefix = f"q{question.pk}"
            if question.is_private:
                questions[prefix] = questions[f"{prefix}_answer"] = (
                    TRUE_ANSWER_SENT,
                    question,
                )
            if not question.optional:
                questions[f"{prefix}_skipped"] = (SKIP_NOT_ALLOWED, question)
        rest = []
        for name in names:
            if name.startswith(LINK_PREFIX):
                continue
            if name in questions:
                message, question = questions[name]
                self.add_error(None, message % {"question": question.text})
            else:
                rest.append(name)
        return rest

    def link_inputs(self) -> list[Any]:
        """The hidden inputs carrying the link fields' values (bound fields)."""
        return [self[f"{LINK_PREFIX}{name}"] for name in self.survey.link_fields]

    def link_values(self) -> dict[str, str]:
        """The link fields' values this form carries (initial or posted), by name."""
        values = {}
        for name in self.survey.link_fields:
            bound = self[f"{LINK_PREFIX}{name}"]
            value = bound.value() if self.is_bound else bound.initial
            if value:
                values[name] = str(value)
        return values

    def clean(self) -> dict[str, Any]:
        """An optional question is answered or skipped, never both nor neither;
        a question hidden by display logic arrives with nothing at all."""
        data = super().clean()
        for key in self.data:
            if key.startswith(LINK_PREFIX) and key not in self.fields:
                self.add_error(
                    None,
                    f"This survey records no “{key[len(LINK_PREFIX) :]}” from its "
                    "link; nothing was stored.",
                )
        hidden = self._check_conditions(data)
        for question in self.questions:
            if not question.optional or question.pk in hidden:
                continue
            prefix = f"q{question.pk}"
            answer = f"{prefix}_report" if question.is_private else prefix
            skipped = data.get(f"{prefix}_skipped")
            source = data if question.is_private else self.data
            given = source.get(answer) not in (None, "")
            if skipped and given:
                self.add_error(
                    answer, SKIPPED_AND_ANSWERED % {"question": question.text}
                )
            elif (
                not skipped
                and not given
                and question.is_private
                and answer not in self.errors
            ):
                # The device always says how (declined or blank): without
                # its marker, its script did not run.
                self.add_error(answer, NO_REPORT % {"question": question.text})
        return data

    def skip_reasons(self) -> dict[int, str]:
        """The shown optional questions left unanswered, each with how
        (``surveys.collection.missing``): its marker's reason, or left blank
        when an unprotected one arrived with nothing (no marker, no answer:
        a page without its script)."""
        hidden = self.hidden()
        reasons: dict[int, str] = {}
        for question in self.questions:
            if not question.optional or question.pk in hidden:
                continue
            prefix = f"q{question.pk}"
            marker = self.cleaned_data.get(f"{prefix}_skipped")
            if marker:
                reasons[question.pk] = marker
            elif (
                not question.is_private
                and not facts(question.kind).several
                and self.cleaned_data.get(prefix) in (None, "")
            ):
                reasons[question.pk] = missing.BLANK
        return reasons

    def skipped(self) -> frozenset[int]:
        """The shown optional questions left unanswered (declined or blank)."""
        return frozenset(self.skip_reasons())

    def _add_plain(self, question: Question) -> None:
        self.fields[f"q{question.pk}"] = plain_field(question)
        if other_value(question) is not None:
            self.fields[f"q{question.pk}{OTHER_SUFFIX}"] = other_field(question)

    # --- reading ------------------------------------------------------------
    def blocks(self) -> list[QuestionBlock]:
        """Questions in order, with their visible and hidden fields."""
        blocks = []
        for number, question in enumerate(self.questions, start=1):
            prefix = f"q{question.pk}"
            if question.is_private:
                answer = self[f"{prefix}_answer"]
                hidden = [self[f"{prefix}_report"], self[f"{prefix}_spec_revision"]]
            else:
                answer, hidden = self[prefix], []
            skip = self[f"{prefix}_skipped"] if question.optional else None
            block = QuestionBlock(question, number, answer, hidden, skip)
            if f"{prefix}{OTHER_SUFFIX}" in self.fields:
                block.other = self[f"{prefix}{OTHER_SUFFIX}"]
            blocks.append(block)
        return blocks

    def sections(self) -> list[SectionBlock]:
        """The questions split at their section breaks (one section if none).

        A survey whose first question has no break starts with an untitled
        section, named by its number.
        """
        groups: list[tuple[str, str, list[QuestionBlock]]] = []
        for block in self.blocks():
            question = block.question
            if question.section_title or not groups:
                groups.append((question.section_title, question.section_intro, []))
            groups[-1][2].append(block)
        for _, _, blocks in groups:
            mark_grids(blocks)
        return [
            SectionBlock(
                number,
                len(groups),
                title or gettext("Section %(number)s") % {"number": number},
                intro,
                blocks,
            )
            for number, (title, intro, blocks) in enumerate(groups, start=1)
        ]

    def problems(self) -> list[str]:
        """Every validation error as one plain sentence."""
        messages: list[str] = []
        for name, errors in self.errors.items():
            for error in errors:
                if name in {"idempotency_key", "survey_revision"}:
                    messages.append(
                        gettext("%(error)s Reload the page and answer again.")
                        % {"error": error}
                    )
                else:
                    messages.append(str(error))
        return messages

    def response(self) -> ResponseIn:
        """The cleaned form as the ingestion service's input."""
        data = self.cleaned_data
        reports: dict[int, SentReport] = {}
        plain: dict[int, Any] = {}
        other_texts: dict[int, str] = {}
        reasons = self.skip_reasons()
        skipped = frozenset(reasons)
        hidden = self.hidden()
        for question in self.questions:
            prefix = f"q{question.pk}"
            if question.pk in skipped or question.pk in hidden:
                continue  # only the marker (or nothing): no answer, no report
            if question.is_private:
                reports[question.pk] = SentReport(
                    spec_revision=data[f"{prefix}_spec_revision"],
                    payload=data[f"{prefix}_report"],
                )
            else:
                value = data[prefix]
                if facts(question.kind).grid:
                    value = str(value)
                plain[question.pk] = value
                if data.get(f"{prefix}{OTHER_SUFFIX}"):
                    other_texts[question.pk] = data[f"{prefix}{OTHER_SUFFIX}"]
        key = data["idempotency_key"]
        return ResponseIn(
            idempotency_key=key if isinstance(key, uuid.UUID) else uuid.UUID(str(key)),
            survey_revision=data["survey_revision"],
            reports=reports,
            plain_answers=plain,
            other_texts=other_texts,
            skipped=skipped,
            skip_reasons=reasons,
            link_values={
                name: data[f"{LINK_PREFIX}{name}"]
                for name in self.survey.link_fields
                if data.get(f"{LINK_PREFIX}{name}")
            },
        )

    def js_config(self) -> dict[str, Any]:
        """What the page's script needs (``device_config.device_config``)."""
        return device_config(self)
