"""Which quota cells are full (``surveys.authoring.quotas``), for the device.

The answer page gives the device the cells already full when it was served;
the device checks its own unprotected answers against them before anything
is randomized, and closes politely with nothing sent when one is full.
"""

from __future__ import annotations

from surveys.authoring.kinds import facts
from surveys.authoring.models import Survey
from surveys.authoring.quotas import takes_quotas
from surveys.collection.models import PlainAnswer


def full_cells(survey: Survey) -> dict[str, list[int]]:
    """Question id → the answer values whose quota is reached, counting the
    survey's counted (not test) submissions (one count per quota cell)."""
    full: dict[str, list[int]] = {}
    for question in survey.questions.all():
        if not question.quotas or not takes_quotas(question):
            continue
        several = facts(question.kind).several
        answers = PlainAnswer.objects.filter(
            question=question, submission__is_test=False
        )
        for value, limit in sorted(question.quotas.items()):
            matching = (
                answers.filter(value__contains=[int(value)])
                if several
                else answers.filter(value=int(value))
            )
            if matching.count() >= limit:
                full.setdefault(str(question.pk), []).append(int(value))
    return full
