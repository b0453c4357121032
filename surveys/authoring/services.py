"""Writes for the survey builder: surveys, questions, publishing and revisions.

One place to call them from; each job lives in its own module:

- ``survey_services``: create, edit, publish, close, reopen and duplicate a
  survey;
- ``question_services``: add a question or a grid, edit, delete and move one;
- ``survey_limits``: what a survey may hold (its total ε, its size).

Every service validates its input and raises ``ValidationError`` (nothing is
changed) with a message that says what was wrong and what is allowed.  Specs
are immutable once the first response arrives: a changed privacy setting then
becomes a new SpecRevision and a new survey revision.
"""

from __future__ import annotations

from surveys.authoring.question_services import (
    GRID_ROWS_MAX,
    GRID_ROWS_MIN,
    grid_create,
    question_create,
    question_delete,
    question_move,
    question_update,
)
from surveys.authoring.survey_limits import (
    BUDGET_MAX,
    SURVEY_OPTIONS_MAX,
    SURVEY_QUESTIONS_MAX,
    budget_error,
)
from surveys.authoring.survey_services import (
    survey_close,
    survey_create,
    survey_duplicate,
    survey_publish,
    survey_reopen,
    survey_update,
)

__all__ = [
    "BUDGET_MAX",
    "GRID_ROWS_MAX",
    "GRID_ROWS_MIN",
    "SURVEY_OPTIONS_MAX",
    "SURVEY_QUESTIONS_MAX",
    "budget_error",
    "grid_create",
    "question_create",
    "question_delete",
    "question_move",
    "question_update",
    "survey_close",
    "survey_create",
    "survey_duplicate",
    "survey_publish",
    "survey_reopen",
    "survey_update",
]
