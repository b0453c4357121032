"""Imported questionnaires become draft surveys through the builder's services."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from surveys.authoring.imports import drafts, formats
from surveys.authoring.models import Question, Survey, SurveyImport
from tests.surveys.authoring.imports.workbooks import STUDENT_LIFE, fixture, xlsform

pytestmark = pytest.mark.django_db


def _import(owner, name: str, raw: bytes) -> Survey:
    source, parsed = formats.read(name, raw)
    return drafts.draft_from(owner=owner, parsed=parsed, source=source, file_name=name)


def _codes(survey: Survey) -> list[tuple[str, str]]:
    return [(f["code"], f["where"]) for f in survey.import_record.findings]


def test_an_xlsform_becomes_a_draft_with_its_sections_kinds_and_answers(ada):
    survey = _import(ada, "student-life.xlsx", STUDENT_LIFE)
    rows = list(survey.questions.order_by("position"))
    assert survey.status == Survey.Status.DRAFT and survey.title == "Student life"
    assert [(q.kind, q.text) for q in rows] == [
        ("single_choice", "Your faculty"),
        ("numeric", "Your age"),
        ("yes_no", "Have you ever cheated on an exam?"),
        ("ordinal", "How often do you drink?"),
        ("multi_select", "Which have you used?"),
        ("numeric", "Hours of sleep"),
        ("short_text", "Anything else?"),
        ("single_choice", "Your minor"),
    ]
    faculty, age, cheated, _, _, hours, _, _ = rows
    assert faculty.options == ["Arts", "Law", "Science"]
    assert (faculty.section_title, faculty.section_intro) == (
        "About you",
        "Thank you for taking part.",
    )
    assert faculty.help_text == "As enrolled"
    assert cheated.section_title == "Habits"
    assert (age.numeric_low, age.numeric_high, age.numeric_step) == (16, 99, 1)
    assert str(hours.numeric_step) == "0.1000"
    assert [q.optional for q in rows] == [False] * 3 + [True] * 5


def test_every_imported_question_arrives_unprotected(ada):
    survey = _import(ada, "student-life.xlsx", STUDENT_LIFE)
    assert survey.questions.count() == 8
    assert not survey.questions.filter(is_private=True).exists()
    assert not survey.questions.exclude(spec=None).exists()


def test_conditions_on_earlier_answers_become_display_logic(ada):
    survey = _import(ada, "student-life.xlsx", STUDENT_LIFE)
    by_text = {q.text: q for q in survey.questions.all()}
    faculty, cheated = (
        by_text["Your faculty"],
        by_text["Have you ever cheated on an exam?"],
    )
    assert by_text["How often do you drink?"].show_if == {
        "question": faculty.pk,
        "any_of": [0, 1],
    }
    assert by_text["Which have you used?"].show_if == {
        "question": cheated.pk,
        "any_of": [1],
    }
    assert by_text["Your minor"].show_if is None


def test_what_does_not_map_is_listed_and_never_dropped_silently(ada):
    survey = _import(ada, "student-life.xlsx", STUDENT_LIFE)
    assert _codes(survey) == [
        ("decimal_step", "hours (Hours of sleep)"),
        ("condition", "minor (Your minor)"),
        ("metadata", "start"),
    ]
    assert survey.import_record.source == SurveyImport.Source.XLSFORM
    assert survey.import_record.file_name == "student-life.xlsx"


def test_labels_in_deniable_languages_become_the_surveys_translations(ada):
    survey = _import(ada, "student-life.xlsx", STUDENT_LIFE)
    assert (survey.source_language, survey.languages) == ("en", ["fr"])
    faculty = survey.questions.get(text="Your faculty")
    assert faculty.translations["fr"]["text"] == "Votre faculté"
    assert faculty.translations["fr"]["options"] == ["Lettres", "Droit", "Sciences"]
    assert faculty.translations["fr"]["section_title"] == "À propos de vous"


def test_pyxforms_specification_form_imports_its_choice_questions_and_lists_the_rest(
    ada,
):
    survey = _import(ada, "spec.xlsx", fixture("pyxform_xlsform_spec_test.xlsx"))
    assert list(survey.questions.values_list("kind", "text")) == [
        ("yes_no", "Skip to end"),
        ("short_text", "Enter your name"),
        ("short_text", "Enter an address"),
        ("short_text", "text_image_audio_video_test"),
        ("yes_no", "autocomplete_test"),
        ("yes_no", "autocomplete_chars_test"),
        ("short_text", "numerical name test"),
        ("short_text", "boolean name test"),
    ]
    codes = {code for code, _ in _codes(survey)}
    assert {
        "language",
        "repeat",
        "in_repeat",
        "unsupported_type",
        "calculation",
        "metadata",
        "no_range",
        "condition",
    } <= codes
    # Every row of the survey sheet that is not a question, group end or
    # imported note is accounted for.
    assert len(survey.import_record.findings) >= 34


def test_or_other_becomes_other_please_specify_and_choice_filters_are_listed(ada):
    survey = _import(ada, "or_other.xlsx", fixture("pyxform_or_other.xlsx"))
    assert survey.questions.count() == 2
    assert list(survey.questions.values_list("other_option", flat=True)) == [
        True,
        False,
    ]
    findings = survey.import_record.findings
    assert [(f["code"], f["dropped"]) for f in findings] == [("choice_filter", False)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "citric_survey.lss",
            [
                ("long_text", "Text for first question"),
                ("ordinal", "Text for second question"),
                ("yes_no", "Do you like this survey?"),
            ],
        ),
        (
            "citric_answers.lss",
            [("multi_select", "This is the first question")]
            + [
                ("single_choice", f"This is the second question — {item}")
                for item in (
                    "Color",
                    "Milkiness",
                    "Creaminess",
                    "Mouthfeel",
                    "Aftertaste",
                )
            ],
        ),
    ],
)
def test_a_limesurvey_export_becomes_a_draft(ada, name, expected):
    survey = _import(ada, name, fixture(name))
    assert list(survey.questions.values_list("kind", "text")) == expected
    assert survey.import_record.source == SurveyImport.Source.LIMESURVEY


def test_limesurvey_groups_become_sections_and_unsupported_questions_are_listed(ada):
    survey = _import(ada, "survey.lss", fixture("citric_survey.lss"))
    text, scale, second = survey.questions.order_by("position")
    assert text.section_title == "First Group" and text.kind == "long_text"
    assert text.section_intro == "This is the first question group of this survey"
    assert scale.optional is False and scale.options == ["1", "2", "3", "4", "5"]
    assert second.section_title == "Second Group"
    assert _codes(survey) == [
        ("unsupported_type", "G02Q03 (Please upload a text file)"),
    ]


def test_a_questionnaire_bigger_than_a_survey_is_refused_with_nothing_created(ada):
    rows = [["type", "name", "label"]] + [
        ["select_one yn", f"q{n}", f"Question {n}"] for n in range(51)
    ]
    raw = xlsform(
        rows, [["list_name", "name", "label"], ["yn", "yes", "Yes"], ["yn", "no", "No"]]
    )
    with pytest.raises(ValidationError, match=r"51 questions.*at most 50"):
        _import(ada, "big.xlsx", raw)
    assert not Survey.objects.exists() and not Question.objects.exists()


def test_a_file_with_nothing_that_maps_is_refused_with_nothing_created(ada):
    raw = xlsform([["type", "name", "label"], ["geopoint", "where", "Your place"]])
    with pytest.raises(ValidationError, match="No question of this file"):
        _import(ada, "names.xlsx", raw)
    assert not Survey.objects.exists() and not SurveyImport.objects.exists()


def test_a_question_the_builder_refuses_is_listed_and_the_rest_imported(ada):
    raw = xlsform(
        [
            ["type", "name", "label"],
            ["select_one twice", "dup", "Duplicated options"],
            ["select_one ok", "fine", "Fine options"],
        ],
        [
            ["list_name", "name", "label"],
            ["twice", "a", "Same"],
            ["twice", "b", "same"],
            ["ok", "a", "One"],
            ["ok", "b", "Two"],
        ],
    )
    survey = _import(ada, "dup.xlsx", raw)
    assert list(survey.questions.values_list("text", flat=True)) == ["Fine options"]
    (finding,) = survey.import_record.findings
    assert (
        finding["code"] == "refused"
        and "more than once" in finding["values"]["problem"]
    )


def test_a_condition_on_a_question_not_imported_is_listed_and_dropped(ada):
    raw = xlsform(
        [
            ["type", "name", "label", "relevant"],
            ["geopoint", "job", "Where you work", None],
            ["select_one yn", "q", "Do you smoke?", "${job} = 'nurse'"],
        ],
        [["list_name", "name", "label"], ["yn", "yes", "Yes"], ["yn", "no", "No"]],
    )
    survey = _import(ada, "c.xlsx", raw)
    assert survey.questions.get().show_if is None
    assert [f["code"] for f in survey.import_record.findings] == [
        "unsupported_type",
        "condition_driver",
    ]


def test_a_german_needs_survey_imports_its_choices_and_says_its_language_is_not_offered(
    ada,
):
    survey = _import(ada, "umfrage.xlsx", fixture("correlaid_mitwirken_umfrage.xlsx"))
    assert survey.title.startswith("Bedarfserhebung für Migrant")
    assert survey.questions.count() == 36
    kinds = dict(survey.questions.values_list("text", "kind"))
    assert kinds["Kennen Sie das sächsische Integrations- und Teilhabegesetz?"] == (
        "yes_no"
    )
    assert kinds["Was sind die Themenfelder Ihrer Arbeit?"] == "multi_select"
    codes = [code for code, _ in _codes(survey)]
    assert codes[0] == "source_language"
    assert "open_text" not in codes and codes.count("no_range") == 2
    assert kinds["Bitte beschreiben Sie diese Veränderungen."] == "long_text"
    rating = survey.questions.get(text="Wie würden Sie die Zusammenarbeit bewerten?")
    driver = survey.questions.get(pk=rating.show_if["question"])
    assert driver.kind == "yes_no" and rating.show_if["any_of"] == [1]


def test_a_german_and_english_form_is_imported_in_english_with_its_conditions(ada):
    survey = _import(ada, "apply.xlsx", fixture("correlaid_project_application.xlsx"))
    assert survey.source_language == "en" and survey.languages == []
    assert survey.questions.count() == 42  # 43 read, one refused
    python = survey.questions.get(text="Python")
    roles = survey.questions.get(pk=python.show_if["question"])
    assert roles.kind == "multi_select"
    assert python.show_if["any_of"] == [roles.options.index("Data analysis")]
    findings = {(f["code"], f["where"]) for f in survey.import_record.findings}
    assert ("language", "deutsch (de)") in findings
    refused = [f for f in survey.import_record.findings if f["code"] == "refused"]
    assert [f["where"] for f in refused] == ["consent_privacy_policy"]
