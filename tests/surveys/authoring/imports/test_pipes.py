"""XLSForm's ``${name}`` in a label becomes Deniable's ``{{qN}}`` pipe when the
builder allows it, and is otherwise left as written with a finding."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from surveys.authoring import services
from surveys.authoring.imports import drafts, formats, pipes
from surveys.authoring.imports.parsed import ParsedQuestion, ParsedSurvey
from surveys.authoring.imports.suggestions import suggest
from surveys.authoring.imports.wording import sentence
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from tests.surveys.authoring.imports.workbooks import xlsform

pytestmark = pytest.mark.django_db

CHOICES = [
    ["list_name", "name", "label", "label::Français (fr)"],
    ["pets", "cat", "Cat", "Chat"],
    ["pets", "dog", "Dog", "Chien"],
]
PIPED = xlsform(
    [
        ["type", "name", "label", "label::Français (fr)", "hint", "constraint"],
        ["text", "nick", "Your first name", "Votre prénom", None, None],
        ["note", "hello", "Welcome ${nick}", None, None, None],
        [
            "select_one pets",
            "pet",
            "Hello ${nick}: your pet?",
            "${nick} : animal ?",
            None,
            None,
        ],
        [
            "integer",
            "age",
            "How old is your ${pet}? (not ${later} nor ${nowhere}, nor ${hello})",
            "Âge de votre ${ pet } ?",
            "Ask ${nick}",
            ". >= 0 and . <= 40",
        ],
        ["text", "later", "Anything else?", None, None, None],
    ],
    CHOICES,
)


def _import(owner, raw: bytes) -> Survey:
    source, parsed = formats.read("pets.xlsx", raw)
    return drafts.draft_from(owner=owner, parsed=parsed, source=source)


def _findings(survey: Survey) -> list[tuple[str, str, str]]:
    return [
        (f["code"], f["where"], f["values"].get("name", ""))
        for f in survey.import_record.findings
    ]


@pytest.fixture
def piped(ada) -> Survey:
    return _import(ada, PIPED)


def test_a_reference_to_an_earlier_question_becomes_its_pipe(piped):
    texts = list(piped.questions.order_by("position").values_list("text", flat=True))
    assert texts[1] == "Hello {{q1}}: your pet?"
    assert texts[2].startswith("How old is your {{q2}}?")


def test_translated_labels_get_the_same_pipes(piped):
    pet, age = piped.questions.order_by("position")[1:3]
    assert pet.translations["fr"]["text"] == "{{q1}} : animal ?"
    assert age.translations["fr"]["text"] == "Âge de votre {{q2}} ?"


def test_later_unknown_and_note_references_stay_as_text_with_a_finding(piped):
    age = piped.questions.get(position=3)
    assert "(not ${later} nor ${nowhere}, nor ${hello})" in age.text
    found = _findings(piped)
    assert ("pipe_later", "age", "${later}") in found
    assert ("pipe_unknown", "age", "${nowhere}") in found
    assert ("pipe_unknown", "age", "${hello}") in found
    later = next(f for f in piped.import_record.findings if f["code"] == "pipe_later")
    assert sentence(later) == (
        "“${later}” is shown as written: that question comes at or after this "
        "one, and only an earlier answer can be repeated."
    )


def test_hints_and_notes_with_a_reference_are_kept_as_written_and_listed(piped):
    pet, age = piped.questions.order_by("position")[1:3]
    assert pet.help_text == "Welcome ${nick}"
    assert age.help_text == "Ask ${nick}"
    listed = [where for code, where, _ in _findings(piped) if code == "piping"]
    assert [where.split()[0] for where in listed] == ["pet", "age"]


def test_a_question_referring_to_itself_is_left_as_written(ada):
    raw = xlsform([["type", "name", "label"], ["text", "me", "Again ${me}?"]])
    survey = _import(ada, raw)
    assert survey.questions.get().text == "Again ${me}?"
    assert _findings(survey) == [("pipe_later", "me", "${me}")]


def test_a_protected_question_is_never_piped(ada):
    survey = services.survey_create(owner=ada, title="Pets")
    source = services.question_create(
        survey=survey,
        text="Have you ever cheated?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    assert source.is_private
    parsed = ParsedSurvey(title="Pets")
    question = ParsedQuestion(name="q", kind="short_text", text="You said ${cheat}")
    parsed.questions.append(question)
    pipes.convert(parsed, question, {"cheat": source})
    assert question.text == "You said ${cheat}"
    (finding,) = parsed.findings
    assert (finding.code, finding.values) == ("pipe_protected", {"name": "${cheat}"})
    assert "never repeated on the page" in sentence(finding.as_json())


def test_a_piped_question_is_suggested_to_stay_unprotected(piped):
    rows = {row.question.position: row for row in suggest(piped).rows}
    assert rows[2].preview is None
    assert "a later question's text repeats its answer" in rows[2].reason


def test_the_builder_refuses_to_protect_a_question_whose_answer_is_piped(piped):
    pet = piped.questions.get(position=2)
    with pytest.raises(ValidationError, match="which is protected"):
        services.question_update(
            question=pet,
            text="Your pet?",
            privacy=PrivacyConfig(kind="single_choice", options=("Cat", "Dog")),
        )
    pet.refresh_from_db()
    assert not pet.is_private
