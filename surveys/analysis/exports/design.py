"""The survey's design as documents: its questions with every spec their reports
were made under, and the design card (everything that decides how answers were
randomized, with the device scripts' hashes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils import timezone

import ldp
from ldp.spec.ceilings import EPSILON_CEILING_QUESTION, EPSILON_CEILING_SURVEY
from surveys.authoring import kinds
from surveys.authoring.catalogue import mechanism_label
from surveys.authoring.lifecycle import survey_availability
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.collection import assets
from surveys.collection.questions import answer_choices


def question_labels(question: Question) -> list[str]:
    by_value = dict(answer_choices(question))
    return [by_value[v] for v in sorted(by_value)]


def spec_revisions(survey: Survey) -> dict[int, dict[int, dict]]:
    """question id → {revision: compiled spec}, including the current one."""
    found: dict[int, dict[int, dict]] = {}
    for row in SpecRevision.objects.filter(question__survey=survey).order_by(
        "question_id", "revision"
    ):
        found.setdefault(row.question_id, {})[row.revision] = row.spec
    for question in survey.questions.filter(is_private=True):
        if question.spec:
            found.setdefault(question.pk, {}).setdefault(
                question.spec_revision, question.spec
            )
    return found


def question_document(question: Question, revisions: dict[int, dict]) -> dict:
    document: dict[str, Any] = {
        "question_id": question.pk,
        "position": question.position,
        "text": question.text,
        "kind": question.kind,
        "labels": question_labels(question),
        "is_private": question.is_private,
    }
    if kinds.facts(question.kind).grid:
        document["range"] = {
            "low": str(question.numeric_low),
            "high": str(question.numeric_high),
            "step": str(question.numeric_step),
        }
    mechanism = question.compiled_mechanism()
    if mechanism is not None:
        name = question.spec.get("mechanism", "")
        document.update(
            mechanism=name,
            mechanism_label=mechanism_label(name),
            epsilon=mechanism.epsilon,
            epsilon_display=mechanism.epsilon_display,
            spec_revision=question.spec_revision,
            spec=question.spec,
            spec_revisions={str(r): s for r, s in sorted(revisions.items())},
        )
    return document


def questions_document(survey: Survey) -> list[dict]:
    revisions = spec_revisions(survey)
    return [
        question_document(q, revisions.get(q.pk, {})) for q in survey.questions.all()
    ]


def _integrity(script: Callable[[], Any]) -> str | None:
    """The SRI hash of a device script, or None when its file cannot be read."""
    try:
        return script().integrity
    except OSError:
        return None


def design_card(survey: Survey) -> dict[str, Any]:
    """Everything that decides how answers were randomized, as one JSON document."""
    questions = questions_document(survey)
    epsilons = [q["epsilon"] for q in questions if "epsilon" in q]
    availability = survey_availability(survey)
    return {
        "format": "deniable-design-card/1",
        "generated_at": timezone.now().isoformat(),
        "survey": {
            "id": survey.pk,
            "title": survey.title,
            "description": survey.description,
            # What respondents meet now: a published survey past its closing
            # date or response target is "closed", not "open".
            "status": str(availability.state),
            "closed_because": str(availability.reason) or None,
            "revision": survey.revision,
            "published_at": (
                survey.published_at.isoformat() if survey.published_at else None
            ),
            "epsilon_budget": survey.epsilon_budget,
            "total_epsilon": sum(epsilons),
            "total_epsilon_method": "sequential composition (sum of delivered ε)",
        },
        "spec_version": ldp.SPEC_VERSION,
        "randomizer_sha384": _integrity(assets.randomizer_script),
        "wording_sha384": _integrity(assets.wording_script),
        "outbox_sha384": _integrity(assets.outbox_script),
        # respond.js, the one script respondent pages run (docs/testing.md, 5);
        # its parts are fingerprinted with it in the release record.
        "page_script_sha384": _integrity(assets.respond_script),
        # What every respondent's device refuses to exceed (ldp/js/randomizer.js).
        "device_epsilon_ceilings": {
            "question": EPSILON_CEILING_QUESTION,
            "survey": EPSILON_CEILING_SURVEY,
        },
        "questions": questions,
    }
