"""What respondents are told about each mechanism, in one place.

The consent page says how each protected answer is randomized (``how``), and
the receipt says what the device sent and, where the report alone could
mislead, why it protects the respondent (``receipt_why``).  Researcher wording
lives in ``surveys.authoring.catalogue``; this module speaks to respondents
only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from surveys.authoring.compiled import compiled_mechanism
from surveys.authoring.models import Question
from surveys.collection.questions import answer_choices, grid_value, value_label


@dataclass(frozen=True)
class RespondentWords:
    """How one mechanism is explained to the people answering."""

    how: str
    receipt_why: str = ""


UNARY = "your device sends one bit per option, each flipped at random"
NOISE = "your device adds random noise to your number"
NUMERIC_WHY = (
    "Your device added randomness to your number, so what it sent may be far "
    "from yours; only averages over many people are meaningful."
)

RESPONDENT_WORDS: dict[str, RespondentWords] = {
    "forced_response": RespondentWords(
        "a coin-flip design: sometimes your device answers “Yes” or “No” at "
        "random instead of your answer"
    ),
    "warner": RespondentWords(
        "your device keeps your answer with some probability and otherwise "
        "sends the opposite"
    ),
    "grr": RespondentWords(
        "your device keeps your answer with some probability and otherwise "
        "sends one of the other options at random"
    ),
    "sue": RespondentWords(UNARY),
    "oue": RespondentWords(UNARY),
    "olh": RespondentWords(
        "your device sends a random hash of your answer, itself randomized"
    ),
    "hadamard": RespondentWords(
        "your device sends one randomized bit about a random pattern"
    ),
    "ordinal": RespondentWords(
        "your device sends a point on the scale drawn at random, more likely "
        "near your answer than far from it"
    ),
    "geometric": RespondentWords(NOISE, NUMERIC_WHY),
    "gaussian": RespondentWords(NOISE, NUMERIC_WHY),
    "duchi": RespondentWords(
        "your device sends only a random “high” or “low” signal, leaning "
        "towards your number",
        NUMERIC_WHY,
    ),
    "piecewise": RespondentWords(
        "your device sends a random value, more likely near your number than "
        "far from it",
        NUMERIC_WHY,
    ),
    "multi_rr": RespondentWords(
        UNARY,
        "Each option’s mark was decided partly at random, so the marks do not "
        "show which options you chose.",
    ),
    "padding_sampling": RespondentWords(
        "your device picks one of your selections (or a padding item) at random "
        "and randomizes it",
        "Your device picked one item at random (one of your choices, or a "
        "padding item when you chose fewer than the most allowed) and then "
        "randomized it, so it does not show which options you chose.",
    ),
}


def how_randomized(mechanism_name: str) -> str:
    """How the device randomizes, for the consent page (the name if unknown)."""
    words = RESPONDENT_WORDS.get(mechanism_name)
    return words.how if words else mechanism_name


def receipt_why(mechanism_name: str) -> str:
    """Why a receipt line still protects the respondent ("" when obvious)."""
    words = RESPONDENT_WORDS.get(mechanism_name)
    return words.receipt_why if words else ""


def _labels(question: Question, indices: list[int]) -> str:
    labels = dict(answer_choices(question))
    return ", ".join(labels.get(i, str(i)) for i in indices) or "none"


def describe_report(question: Question, payload: Any) -> str:
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
        cells = compiled_mechanism(spec)
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
