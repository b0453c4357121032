"""What respondents are told about each mechanism, in one place.

The receipt says what the server holds for each protected answer and, where
the report alone could mislead, why it protects the respondent
(``receipt_why``).  How each answer is protected is worded on the respondent's
device (``ldp/js/wording.js``), from the weights it samples from; researcher
wording lives in ``surveys.authoring.catalogue``.
"""

from __future__ import annotations

from typing import Any

from django.utils.formats import number_format
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, pgettext

from surveys.authoring.compiled import compiled_mechanism
from surveys.authoring.models import Question
from surveys.collection.questions import grid_value, shown_choices, shown_label

StrOrPromise = str | Promise

NUMERIC_WHY = gettext_lazy(
    "Your device added randomness to your number, so what it sent may be far "
    "from yours; only averages over many people are meaningful."
)

# Why a receipt line still protects the respondent, where the report alone
# could mislead (absent: obvious from the report itself).
RECEIPT_WHY: dict[str, StrOrPromise] = {
    "geometric": NUMERIC_WHY,
    "gaussian": NUMERIC_WHY,
    "duchi": NUMERIC_WHY,
    "piecewise": NUMERIC_WHY,
    "multi_rr": gettext_lazy(
        "Each option’s mark was decided partly at random, so the marks "
        "do not show which options you chose."
    ),
    "padding_sampling": gettext_lazy(
        "Your device picked one item at random (one of your "
        "choices, or a padding item when you chose fewer than the most allowed) "
        "and then randomized it, so it does not show which options you chose."
    ),
}


def receipt_why(mechanism_name: str) -> str:
    """Why a receipt line still protects the respondent ("" when obvious), in
    the active language."""
    return str(RECEIPT_WHY.get(mechanism_name, ""))


def _labels(question: Question, indices: list[int]) -> str:
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
    ``SpecRevision``); the question's current spec when not given.
    """
    spec = (question.spec if spec is None else spec) or {}
    mechanism = spec.get("mechanism")
    is_int = isinstance(payload, int) and not isinstance(payload, bool)
    if mechanism in {"forced_response", "warner", "grr", "ordinal"} and is_int:
        return shown_label(question, payload)
    if mechanism in {"sue", "oue", "multi_rr"} and isinstance(payload, list):
        marked = [i for i, bit in enumerate(payload) if bit == 1]
        return gettext("bits set for: %(options)s") % {
            "options": _labels(question, marked)
        }
    if mechanism in {"geometric", "gaussian"} and is_int:
        return gettext("the value %(value)s") % {
            "value": number_format(grid_value(question, payload))
        }
    if mechanism == "duchi" and payload in (0, 1) and is_int:
        return (
            gettext("a “high” signal (it leans the estimate up)")
            if payload == 1
            else gettext("a “low” signal (it leans the estimate down)")
        )
    if mechanism == "piecewise" and is_int:
        cells = compiled_mechanism(spec)
        value = float(cells.output_values()[payload])
        return gettext(
            "output cell %(cell)s of %(cells)s, which stands for about %(value)s"
        ) % {
            "cell": number_format(payload + 1),
            "cells": number_format(cells.outputs),
            # Rounded here (number_format would cut the digits off).
            "value": number_format(f"{value:.1f}"),
        }
    if mechanism == "padding_sampling" and is_int:
        k = spec.get("k", len(question.options))
        if payload < k:
            return gettext("the sampled option %(option)s") % {
                "option": _labels(question, [payload])
            }
        return gettext("a padding item (it stands for no option)")
    return gettext("the randomized code %(code)r") % {"code": payload}
