"""What the respondent's device needs for the order of the page and the
quotas (``static/js/order.js``, ``static/js/quotas.js``).

Nothing here is about a protected answer: the order is drawn on the device
independently of every answer and never sent; quotas are on unprotected
answers only, and the full cells are given to the device so that it can
turn a respondent away before anything is randomized.
"""

from __future__ import annotations

from typing import Any

from surveys.authoring import piping
from surveys.authoring.models import Question, Survey
from surveys.collection.quota_state import full_cells


def movable(questions: list[Question]) -> list[int]:
    """The questions whose place the device may draw: those that neither
    decide nor depend on display logic, neither repeat an earlier answer nor
    have theirs repeated, and are not grid rows (the others keep their
    places, so a repeated answer always comes before its repetition)."""
    drivers = {(q.show_if or {}).get("question") for q in questions if q.show_if}
    piped = {number for q in questions for number in piping.numbers(q.text)}
    return [
        q.pk
        for q in questions
        if not q.show_if
        and q.pk not in drivers
        and not q.grid
        and not piping.numbers(q.text)
        and q.position not in piped
    ]


def flow_config(survey: Survey, questions: list[Question]) -> dict[str, Any]:
    """The device configuration's ``order``, ``quotas_full`` and ``completion``."""
    config: dict[str, Any] = {
        "order": {
            "options": [q.pk for q in questions if q.shuffle_options],
            "movable": movable(questions) if survey.shuffle_questions else [],
        }
    }
    if any(q.quotas for q in questions):
        config["quotas_full"] = full_cells(survey)
        # A respondent a full quota turns away still gets the survey's one
        # completion code (panels pay screen-outs): on a survey with quotas,
        # the code is therefore readable on the answer page.
        if survey.completion_code:
            config["completion"] = {
                "code": survey.completion_code,
                "url": survey.completion_url(),
            }
    return config
