"""Respondents read a survey in their language: the texts change, nothing the
device checks does, and the language is stored only when the survey declares it."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from surveys.analysis.exports import dataset_columns, datasets, raw_reports
from surveys.authoring import services as authoring
from surveys.authoring import translation_services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.models import Submission
from tests.surveys.analysis.conftest import release
from tests.surveys.collection.conftest import JSON, body

pytestmark = pytest.mark.django_db

SCALE = ("Never", "Sometimes", "Often")
TEXTS = {
    "es": {
        "survey": {"title": "Vida estudiantil", "consent_text": "¿Acepta?"},
        "questions": [
            {"text": "¿Su año?", "options": ["Uno", "Dos"]},
            {"text": "¿Ha copiado en un examen?"},
            {
                "text": "¿Con qué frecuencia estudia?",
                "options": ["Nunca", "A veces", "A menudo"],
            },
        ],
    },
    "fr": {
        "survey": {"title": "Vie étudiante", "consent_text": "D'accord ?"},
        "questions": [
            {"text": "Votre année ?", "options": ["Première", "Deuxième"]},
            {"text": "Avez-vous triché à un examen ?"},
            {
                "text": "À quelle fréquence étudiez-vous ?",
                "options": ["Jamais", "Parfois", "Souvent"],
            },
        ],
    },
}


def _make(researcher, *, record_language: bool = False) -> Survey:
    survey = authoring.survey_create(
        owner=researcher, title="Student life", consent_text="Agree?", epsilon_budget=8
    )
    year = authoring.question_create(
        survey=survey,
        text="Your year?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("First", "Second")
        ),
        not_private_acknowledged=True,
    )
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    authoring.question_create(
        survey=survey,
        text="How often do you study?",
        privacy=PrivacyConfig(kind="ordinal", options=SCALE),
    )
    authoring.question_update(
        question=survey.questions.all()[2],
        text="How often do you study?",
        privacy=PrivacyConfig(kind="ordinal", options=SCALE),
        show_if={"question": year.pk, "any_of": [1]},
    )
    translation_services.survey_languages_update(
        survey=survey,
        user=researcher,
        source_language="en",
        languages=["es", "fr"],
        record_language=record_language,
    )
    questions = list(survey.questions.all())
    for language, texts in TEXTS.items():
        translation_services.translations_update(
            survey=survey,
            user=researcher,
            language=language,
            survey_texts=texts["survey"],
            question_texts={
                q.pk: given
                for q, given in zip(questions, texts["questions"], strict=True)
            },
        )
    return authoring.survey_publish(survey=survey, user=researcher)


@pytest.fixture
def trilingual(researcher) -> Survey:
    return _make(researcher)


@pytest.fixture
def recording(researcher) -> Survey:
    return _make(researcher, record_language=True)


def _page(client, survey: Survey, name: str, language: str) -> str:
    url = reverse(f"collection:{name}", args=[survey.public_token])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def _device_config(page: str) -> dict:
    found = re.search(
        r'<script id="device-config" type="application/json">(.*?)</script>',
        page,
        re.S,
    )
    assert found
    return json.loads(found.group(1))


@pytest.mark.parametrize(
    ("language", "title", "question"),
    [
        ("en", "Student life", "Have you ever cheated on an exam?"),
        ("es", "Vida estudiantil", "¿Ha copiado en un examen?"),
        ("fr-FR,fr;q=0.9", "Vie étudiante", "Avez-vous triché à un examen ?"),
    ],
)
def test_the_answer_page_is_in_the_browsers_language(
    client, trilingual, language, title, question
):
    page = _page(client, trilingual, "respond", language)
    assert f"<h1>{title}</h1>" in page
    assert question in page
    assert f'lang="{language[:2]}"' in page


def test_the_consent_page_shows_the_translated_title_and_consent_text(
    client, trilingual
):
    page = _page(client, trilingual, "consent", "es")
    assert "Vida estudiantil" in page
    assert "¿Acepta?" in page
    assert "Agree?" not in page


def test_option_labels_are_translated_in_their_source_order(client, trilingual):
    page = _page(client, trilingual, "respond", "fr")
    assert page.index("Jamais") < page.index("Parfois") < page.index("Souvent")
    assert "Sometimes" not in page


def test_a_language_the_survey_is_not_offered_in_gets_the_source(client, trilingual):
    page = _page(client, trilingual, "respond", "ar")
    assert "<h1>Student life</h1>" in page
    assert 'lang="en"' in page


def test_the_language_picker_lists_only_the_surveys_languages(client, researcher):
    survey = _make(researcher)
    translation_services.survey_languages_update(
        survey=survey,
        user=researcher,
        source_language="en",
        languages=["es"],
        record_language=False,
    )
    page = _page(client, survey, "respond", "en")
    picker = page[page.index('<select id="language-choice"') :]
    picker = picker[: picker.index("</select>")]
    assert re.findall(r'<option value="(\w+)"', picker) == ["en", "es"]


def test_the_device_gets_byte_identical_specs_and_logic_in_every_language(
    client, trilingual
):
    # Words differ by language (question text, the form's messages, each
    # content object's text and options); what the device randomizes and
    # the logic it follows must not.
    configs = []
    for language in ("en", "es", "fr"):
        config = _device_config(_page(client, trilingual, "respond", language))
        config.pop("messages")
        for question in config["questions"]:
            question.pop("text")
            body = json.loads(question.pop("content")["text"])
            question["content_spec"] = [body["spec"], body["show_if"]]
        # Each unprotected question's content object: words only, no spec.
        plain = {
            pk: json.loads(entry["text"])
            for pk, entry in config.pop("plain_content").items()
        }
        assert all(body["spec"] is None for body in plain.values())
        config["plain_logic"] = {pk: body["show_if"] for pk, body in plain.items()}
        configs.append(json.dumps(config, sort_keys=True))
    assert configs[0] == configs[1] == configs[2]


def test_a_translation_edit_shows_on_the_answer_page_at_once(
    client, researcher, trilingual
):
    assert "Vida estudiantil" in _page(client, trilingual, "respond", "es")
    translation_services.translations_update(
        survey=trilingual,
        user=researcher,
        language="es",
        survey_texts={"title": "La vida en el campus", "consent_text": "¿Acepta?"},
        question_texts={},
    )
    page = _page(client, trilingual, "respond", "es")
    assert "La vida en el campus" in page


def test_a_question_translation_edit_shows_on_the_answer_page_at_once(
    client, researcher, trilingual
):
    _page(client, trilingual, "respond", "fr")
    first = trilingual.questions.all()[1]
    translation_services.translations_update(
        survey=trilingual,
        user=researcher,
        language="fr",
        survey_texts=TEXTS["fr"]["survey"],
        question_texts={first.pk: {"text": "Avez-vous copié ?"}},
    )
    assert "Avez-vous copié ?" in _page(client, trilingual, "respond", "fr")


def test_nothing_localized_for_a_page_is_saved(client, trilingual):
    _page(client, trilingual, "respond", "es")
    _page(client, trilingual, "consent", "fr")
    stored = Survey.objects.get(pk=trilingual.pk)
    assert stored.title == "Student life"
    assert [q.text for q in stored.questions.all()][1] == (
        "Have you ever cheated on an exam?"
    )


# --- the recorded language ---------------------------------------------------------
def _answer(client, survey: Survey, language: str) -> Submission:
    url = reverse("collection:respond", args=[survey.public_token])
    response = client.post(
        url, body(survey, plain=1), HTTP_ACCEPT_LANGUAGE=language, **JSON
    )
    assert response.status_code == 201, response.content
    release(survey)  # as the tasks the submission announced would
    return Submission.objects.latest("id")


def test_without_the_declaration_no_language_is_stored_or_exported(client, trilingual):
    assert _answer(client, trilingual, "fr").language == ""
    header = next(iter(datasets.wide_csv_lines(trilingual)))
    assert "language" not in header


def test_without_the_declaration_the_consent_page_promises_no_language(
    client, trilingual
):
    assert 'id="kept-language"' not in _page(client, trilingual, "consent", "es")


def test_a_declared_language_is_stored_with_each_submission(client, recording):
    assert _answer(client, recording, "fr").language == "fr"
    assert _answer(client, recording, "es").language == "es"
    assert _answer(client, recording, "de").language == "en"


def test_a_declared_language_is_announced_on_the_consent_page(client, recording):
    assert 'id="kept-language"' in _page(client, recording, "consent", "es")


def test_a_declared_language_is_a_column_of_the_export(client, recording):
    _answer(client, recording, "fr")
    lines = list(datasets.wide_csv_lines(recording))
    header = lines[0].rstrip("\r\n").split(",")
    assert header[1] == dataset_columns.LANGUAGE_COLUMN
    assert lines[1].split(",")[1] == "fr"
    kinds = {v.name: v for v in datasets.variables(recording)}
    assert "tells something about the respondent" in kinds["language"].label


def _api(client, survey: Survey, researcher) -> list[dict]:
    from surveys.api_tokens.services import api_token_create

    secret = api_token_create(user=researcher, name="script").secret
    url = reverse("analysis:api_reports", kwargs={"pk": survey.pk})
    response = client.get(url, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    return response.json()["reports"]


def test_the_api_gives_each_report_its_declared_language(client, researcher, recording):
    _answer(client, recording, "es")
    reports = _api(client, recording, researcher)
    assert reports
    assert {report["language"] for report in reports} == {"es"}


def test_the_api_gives_no_language_unless_declared(client, researcher, trilingual):
    _answer(client, trilingual, "es")
    reports = _api(client, trilingual, researcher)
    assert reports
    assert all("language" not in report for report in reports)


def test_the_raw_reports_carry_a_language_row_per_submission_only_if_declared(
    client, recording, trilingual
):
    stored = _answer(client, recording, "fr")
    text = "".join(raw_reports.reports_csv(recording))
    assert f"language,,,{stored.public_id},,,fr" in text
    document = json.loads("".join(raw_reports.reports_json(recording)))
    assert document["languages"] == [
        {"submission_id": stored.public_id, "language": "fr"}
    ]
    _answer(client, trilingual, "fr")
    assert "\nlanguage," not in "".join(raw_reports.reports_csv(trilingual))
    assert "languages" not in json.loads("".join(raw_reports.reports_json(trilingual)))
