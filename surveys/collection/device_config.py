"""What the answer page's script is given about the survey (its JSON
configuration): each protected question's compiled spec, the unprotected
questions, display logic, and the form's own messages for an unanswered or
ill-typed question, so the device words a problem as the server would; and
the whole device context a respondent page renders (that configuration with
every question's content object, and the device's scripts).
"""

from __future__ import annotations

from typing import Any

from django.utils import translation

from surveys.authoring import piping
from surveys.authoring.kinds import facts
from surveys.collection import assets, content
from surveys.collection.answer_fields import PLEASE_ANSWER
from surveys.collection.flow import flow_config
from surveys.collection.questions import most_selections, other_value


def messages(form: Any) -> dict[str, dict[str, str]]:
    """Per question id: the form's message for a required question left
    unanswered (``required``), and for an unprotected number that is not one
    of its answers (``invalid``)."""
    found: dict[str, dict[str, str]] = {}
    for question in form.questions:
        text = piping.placeholder(question.text)
        words = {"required": str(PLEASE_ANSWER % {"question": text})}
        field = form.fields.get(f"q{question.pk}")
        if field is not None and facts(question.kind).grid:
            words["invalid"] = str(field.error_messages["invalid"])
        found[str(question.pk)] = words
    return found


def device_config(form: Any) -> dict[str, Any]:
    """The device's configuration for ``form``'s survey (a ``ResponseForm``)."""
    questions = form.questions
    return {
        "questions": [
            {
                "id": q.pk,
                "text": q.text,
                "kind": q.kind,
                "spec": q.spec,
                # How the device words a forced-response spec (its figures
                # come from the spec's weights either way).
                "design": (q.design or {}).get("type", ""),
                "spec_revision": q.spec_revision,
                "answer_group": f"q{q.pk}_answer",
                "max_selections": most_selections(q),
                "optional": q.optional,
                "show_if": q.show_if,
            }
            for q in questions
            if q.is_private
        ],
        "plain": [q.pk for q in questions if not q.is_private],
        "plain_optional": [q.pk for q in questions if not q.is_private and q.optional],
        # Open text: the unprotected questions whose answer is typed words
        # (worded as such beside their controls).
        "typed": [q.pk for q in questions if facts(q.kind).free_text],
        # "Other, please specify": question id → the value of "Other".
        "other": {
            str(q.pk): value for q in questions if (value := other_value(q)) is not None
        },
        # The link fields the device copies from the page into its body.
        "link_fields": list(form.survey.link_fields),
        # Display logic: question id → its condition on an unprotected answer.
        "logic": {str(q.pk): q.show_if for q in questions if q.show_if},
        # The server's own words for a question left unanswered or mistyped.
        "messages": messages(form),
        # The device's own random order, and the quota cells already full.
        **flow_config(form.survey, questions),
    }


def device_context(survey: Any, form: Any, page: str) -> dict[str, Any]:
    """The scripts (with their hashes) and the data the device checks and words.

    The pages carry no sentence or figure about protection: the device computes
    them from the specs in ``device_config`` (``ldp/js/wording.js``).
    """
    config = {
        "page": page,
        "survey": survey.public_token,
        "survey_revision": survey.revision,
        "allow_reanswer": survey.allow_reanswer,
        # Save and finish later on this device (never across devices).
        "save_resume": survey.save_resume,
        "contact": survey.researcher_contact,
        **form.js_config(),
    }
    # Each protected question's content object (its canonical text and hash):
    # the device verifies it, words the question from it and remembers by it.
    language = translation.get_language()
    by_id = {question.pk: question for question in form.questions}
    for entry in config["questions"]:
        question = by_id[entry["id"]]
        body = content.question_content(question, language)
        entry["content"] = content.ContentObject(question.pk, language, body).as_json()
    # Each unprotected question's content object too: the device compares its
    # words with the protected questions it was shown before (a question asked
    # under protection, served again without, is asked about first).
    config["plain_content"] = {
        str(question.pk): content.ContentObject(
            question.pk, language, content.question_content(question, language)
        ).as_json()
        for question in form.questions
        if not question.is_private
    }
    return {
        "device_config": config,
        "randomizer": assets.randomizer_script(),
        "wording": assets.wording_script(),
        "outbox": assets.outbox_script(),
        "ledger": assets.ledger_script(),
        **assets.flow_scripts(),
        "section_checks": assets.section_checks_script(),
        "respond_js": assets.respond_script(),
        "respond_parts": assets.respond_parts(),
    }
