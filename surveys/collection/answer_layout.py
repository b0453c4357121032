"""How the answer form lays its questions out: one block per question, grids of
questions that share a scale, and sections.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.forms.boundfield import BoundField

from surveys.authoring.kinds import facts
from surveys.authoring.models import Question
from surveys.collection.answer_fields import (
    range_words,
)
from surveys.collection.questions import (
    grid,
)


@dataclass
class QuestionBlock:
    """One question as the template lays it out."""

    question: Question
    number: int
    answer: BoundField
    hidden: list[BoundField]
    skip: BoundField | None = None
    # "Other, please specify": the text box beside the "Other" answer.
    other: BoundField | None = None
    # A row of a grid of scale items shown together (see ``sections``): the
    # first row opens the grid, the last closes it.
    in_grid: bool = False
    grid_start: bool = False
    grid_end: bool = False

    @property
    def protected(self) -> bool:
        return self.question.is_private

    @property
    def typed(self) -> bool:
        """The answer is a number typed in a box (its kind's answers are a
        grid, or words), so it has a label of its own."""
        kind = facts(self.question.kind)
        return kind.grid or kind.free_text

    @property
    def numeric_words(self) -> str:
        """The range and step in words, for numeric questions ("" otherwise)."""
        bounds = grid(self.question) if facts(self.question.kind).grid else None
        if bounds is None:
            return ""
        return range_words(*bounds)


def _grid_key(question: Question) -> tuple | None:
    """What rows of one grid share (None: not a grid row): the stem and scale of
    a protected scale question without display logic."""
    if not question.grid or not facts(question.kind).ordered:
        return None
    if not question.is_private or question.show_if:
        return None
    return (question.grid, tuple(question.options))


def mark_grids(blocks: list[QuestionBlock]) -> None:
    """Mark runs of two or more consecutive rows of the same grid."""
    start = 0
    while start < len(blocks):
        key = _grid_key(blocks[start].question)
        end = start + 1
        while (
            key is not None
            and end < len(blocks)
            and _grid_key(blocks[end].question) == key
        ):
            end += 1
        if key is not None and end - start >= 2:
            for block in blocks[start:end]:
                block.in_grid = True
            blocks[start].grid_start = True
            blocks[end - 1].grid_end = True
        start = end


@dataclass
class SectionBlock:
    """The questions between two section breaks, shown as one page of the form."""

    number: int
    total: int
    title: str
    intro: str
    blocks: list[QuestionBlock]
