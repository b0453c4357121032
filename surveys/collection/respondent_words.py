"""What respondents are told about their stored reports, in their language.

The receipt says what the server holds for each protected answer and, where
the report alone could mislead, why it protects the respondent.  Both are
declared by each mechanism in its own ``ldp`` module (``report_words`` and
``receipt_why``); this module words them with the question's own labels.  How
each answer is protected is worded on the respondent's device
(``ldp/js/wording.js``), from the weights it samples from; researcher wording
is ``surveys.authoring.catalogue``.
"""

from __future__ import annotations

from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_noop, pgettext

from ldp.mechanisms import registry
from ldp.mechanisms.words import Words
from surveys.authoring.compiled import compiled_mechanism
from surveys.authoring.ldp_words import Answers, shown
from surveys.authoring.models import Question
from surveys.collection.questions import grid_value, shown_choices, shown_label


def receipt_why(mechanism_name: str) -> str:
    """Why a receipt line still protects the respondent ("" when obvious), in
    the active language."""
    family = registry.find(mechanism_name)
    return gettext(family.receipt_why) if family and family.receipt_why else ""


def _labels(question: Question, indices: tuple[int, ...]) -> str:
    labels = dict(shown_choices(question))
    return ", ".join(labels.get(i, str(i)) for i in indices) or pgettext(
        "no option", "none"
    )


def describe_report(
    question: Question, payload: Any, spec: dict[str, Any] | None = None
) -> str:
    """What a stored report says, in the question's own labels (the rest in
    the active language).

    ``spec`` is the compiled spec the report was randomized under (its
    ``SpecRevision``); the question's current spec when not given.  A report
    its mechanism could not have sent is shown as its raw code.
    """
    spec = (question.spec if spec is None else spec) or {}
    words = Words(gettext_noop("the randomized code %(code)r"), {"code": payload})
    if registry.of(spec) is not None:
        mechanism = compiled_mechanism(spec)
        try:
            mechanism.validate_report(payload)
            words = mechanism.report_words(payload)
        except ValueError:
            pass
    answers = Answers(
        answer=lambda index: shown_label(question, index),
        options=lambda indices: _labels(question, indices),
        grid_value=lambda index: number_format(grid_value(question, index)),
    )
    return shown(words, answers)
