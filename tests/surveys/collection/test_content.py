"""Content objects: one per question and language, named by the SHA-256 of
their canonical JSON, made from the survey's own definition."""

from __future__ import annotations

import hashlib
import json

import pytest

from surveys.authoring import services as authoring
from surveys.authoring import translation_services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection import content
from surveys.collection.forms import ResponseForm

pytestmark = pytest.mark.django_db


@pytest.fixture
def bilingual(researcher) -> Survey:
    survey = authoring.survey_create(owner=researcher, title="Habits", epsilon_budget=8)
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        help_text="Any exam counts.",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0),
    )
    authoring.question_create(
        survey=survey,
        text="Your year?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("First", "Second")
        ),
        not_private_acknowledged=True,
    )
    translation_services.survey_languages_update(
        survey=survey,
        user=researcher,
        source_language="en",
        languages=["es"],
        record_language=False,
    )
    cheated, year = survey.questions.all()
    translation_services.translations_update(
        survey=survey,
        user=researcher,
        language="es",
        survey_texts={"title": "Hábitos"},
        question_texts={
            cheated.pk: {
                "text": "¿Ha copiado en un examen?",
                "help_text": "Vale todo.",
            },
            year.pk: {"text": "¿Su año?", "options": ["Uno", "Dos"]},
        },
    )
    return survey


def _by_question(survey: Survey, language: str) -> dict[str, dict]:
    objects = content.survey_content(survey, language)
    return {o.body["text"]: o for o in objects}


def test_the_hash_is_sha256_of_the_canonical_text(bilingual):
    for item in content.survey_content(bilingual, "es"):
        canonical = json.dumps(
            item.body, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode("utf-8")
        assert item.text.encode("utf-8") == canonical
        assert item.hash == hashlib.sha256(canonical).hexdigest()
        assert json.loads(item.as_json()["text"]) == item.body


@pytest.mark.parametrize(
    ("language", "text", "options"),
    [
        ("en", "Have you ever cheated on an exam?", ["Yes", "No"]),
        ("es", "¿Ha copiado en un examen?", ["Sí", "No"]),
    ],
)
def test_a_protected_question_is_read_in_its_language_with_its_spec(
    bilingual, language, text, options
):
    item = _by_question(bilingual, language)[text]
    question = bilingual.questions.get(kind="yes_no")
    assert item.body["options"] == options
    assert item.body["language"] == language
    assert item.body["question"] == question.pk
    assert item.body["spec"] == question.spec
    assert item.body["wording"]["epsilon"] == question.spec["epsilon"]


def test_an_unprotected_question_carries_no_spec_and_its_translated_labels(
    bilingual,
):
    item = _by_question(bilingual, "es")["¿Su año?"]
    assert item.body["spec"] is None and item.body["wording"] is None
    assert item.body["options"] == ["Uno", "Dos"]


def test_the_spec_is_the_one_the_answer_form_gives_the_device(bilingual):
    authoring.survey_publish(survey=bilingual, user=bilingual.owner)
    survey = Survey.objects.get(pk=bilingual.pk)
    given = {
        q["id"]: q["spec"] for q in ResponseForm(survey=survey).js_config()["questions"]
    }
    for item in content.survey_content(survey, "en"):
        if item.body["protected"]:
            assert item.body["spec"] == given[item.question]


def test_editing_a_questions_text_changes_its_hash_and_no_other(bilingual):
    before = {o.question: o.hash for o in content.survey_content(bilingual, "en")}
    cheated = bilingual.questions.get(kind="yes_no")
    authoring.question_update(
        question=cheated,
        text="Have you ever cheated in an exam?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0),
    )
    after = {o.question: o.hash for o in content.survey_content(bilingual, "en")}
    changed = {pk for pk in before if before[pk] != after[pk]}
    assert changed == {cheated.pk}


def test_editing_a_translation_changes_that_languages_hash_only(bilingual):
    year = bilingual.questions.get(kind="single_choice")

    def hashes() -> dict[str, str]:
        return {
            language: next(o.hash for o in objects if o.question == year.pk)
            for language, objects in content.survey_content_all(bilingual).items()
        }

    before = hashes()
    translation_services.translations_update(
        survey=bilingual,
        user=bilingual.owner,
        language="es",
        survey_texts={"title": "Hábitos"},
        question_texts={year.pk: {"text": "¿Su curso?", "options": ["1º", "2º"]}},
    )
    after = hashes()
    assert after["en"] == before["en"]
    assert after["es"] != before["es"]


def test_the_same_questions_under_another_survey_hash_the_same(bilingual):
    first = content.survey_content(bilingual, "en")
    bilingual.public_token = "another-address-entirely"
    bilingual.save(update_fields=["public_token"])
    assert [o.hash for o in content.survey_content(bilingual, "en")] == [
        o.hash for o in first
    ]


@pytest.mark.parametrize(
    ("kind", "typed"),
    [
        ("short_text", {"most": 500, "lines": False}),
        ("long_text", {"most": 5000, "lines": True}),
    ],
)
def test_an_open_text_question_says_how_much_may_be_typed_on_how_many_lines(
    researcher, kind, typed
):
    survey = authoring.survey_create(owner=researcher, title="Notes", epsilon_budget=8)
    question = authoring.question_create(
        survey=survey,
        text="Anything else?",
        privacy=PrivacyConfig(kind=kind, is_private=False),
        not_private_acknowledged=True,
    )
    (made,) = content.survey_content(survey, "en")
    assert made.question == question.pk
    assert made.body["typed"] == typed
    assert "other" not in made.body


def test_a_choice_with_other_names_the_value_of_other_and_its_box_limit(researcher):
    survey = authoring.survey_create(owner=researcher, title="Travel", epsilon_budget=8)
    authoring.question_create(
        survey=survey,
        text="How did you come?",
        privacy=PrivacyConfig(
            kind="single_choice",
            is_private=False,
            options=("On foot", "By bus"),
            other_option=True,
        ),
        not_private_acknowledged=True,
    )
    (made,) = content.survey_content(survey, "en")
    assert made.body["other"] == {"value": 2, "most": 500}
    assert made.body["values"][-1] == 2
    assert made.body["options"][-1] == "Other, please specify"


def test_a_protected_questions_content_has_no_typed_words_keys(bilingual):
    cheated = content.survey_content(bilingual, "en")[0]
    assert cheated.body["protected"] is True
    assert not {"typed", "other"} & set(cheated.body)


def test_an_unprotected_questions_pipes_name_the_question_at_each_position(
    researcher,
):
    survey = authoring.survey_create(owner=researcher, title="Trips", epsilon_budget=8)
    town = authoring.question_create(
        survey=survey,
        text="Your town?",
        privacy=PrivacyConfig(kind="short_text", is_private=False),
        not_private_acknowledged=True,
    )
    authoring.question_create(
        survey=survey,
        text="How long have you lived in {{q1}}?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("A year", "Longer")
        ),
        not_private_acknowledged=True,
    )
    first, piped = content.survey_content(survey, "en")
    assert piped.body["pipes"] == {"1": town.pk}
    assert "pipes" not in first.body
