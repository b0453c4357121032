"""A survey's languages: declaring them, translating every text, publishing only
complete ones, and showing a survey in one language without changing it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import RequestFactory
from django.urls import reverse

from surveys.authoring import services, translation_services, translations
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question, Survey

pytestmark = pytest.mark.django_db

SCALE = ("Never", "Sometimes", "Often")


@pytest.fixture
def bilingual(ada, make_survey, add_question) -> Survey:
    survey = make_survey(description="About campus life.", consent_text="Agree?")
    add_question(survey)
    add_question(survey, kind="single_choice", text="Your year?", options=SCALE)
    translation_services.survey_languages_update(
        survey=survey,
        user=ada,
        source_language="en",
        languages=["es"],
        record_language=False,
    )
    survey.refresh_from_db()
    return survey


SPANISH_SURVEY = {
    "title": "Vida estudiantil",
    "description": "Sobre la vida en el campus.",
    "consent_text": "¿Acepta?",
}


def _spanish(survey: Survey, options=("Nunca", "A veces", "A menudo")) -> dict:
    first, second = survey.questions.all()
    return {
        first.pk: {"text": "¿Ha copiado alguna vez en un examen?"},
        second.pk: {"text": "¿Su año?", "options": list(options)},
    }


def _translate(survey, user, question_texts=None, survey_texts=None) -> Survey:
    return translation_services.translations_update(
        survey=survey,
        user=user,
        language="es",
        survey_texts=SPANISH_SURVEY if survey_texts is None else survey_texts,
        question_texts=_spanish(survey) if question_texts is None else question_texts,
    )


# --- declaring languages ------------------------------------------------------------
def test_a_new_survey_is_written_in_english_and_offered_in_nothing_else(make_survey):
    survey = make_survey()
    assert survey.source_language == "en"
    assert translations.declared_languages(survey) == ["en"]
    assert survey.record_language is False


def test_the_source_language_is_never_also_a_translation(ada, make_survey):
    survey = translation_services.survey_languages_update(
        survey=make_survey(),
        user=ada,
        source_language="fr",
        languages=["fr", "es", "en"],
        record_language=False,
    )
    assert survey.languages == ["en", "es"]


def test_an_unknown_language_is_refused_and_changes_nothing(ada, bilingual):
    with pytest.raises(ValidationError, match="Unknown language xx"):
        translation_services.survey_languages_update(
            survey=bilingual,
            user=ada,
            source_language="en",
            languages=["xx"],
            record_language=True,
        )
    bilingual.refresh_from_db()
    assert bilingual.languages == ["es"]
    assert bilingual.record_language is False


def test_a_published_survey_keeps_its_source_language(ada, bilingual):
    _translate(bilingual, ada)
    services.survey_publish(survey=bilingual, user=ada)
    with pytest.raises(ValidationError, match="can't change"):
        translation_services.survey_languages_update(
            survey=bilingual,
            user=ada,
            source_language="fr",
            languages=["es"],
            record_language=False,
        )


def test_a_viewer_cannot_change_languages(bob, bilingual):
    with pytest.raises(Exception):  # noqa: B017 - access refuses (404 or denied)
        translation_services.survey_languages_update(
            survey=bilingual,
            user=bob,
            source_language="en",
            languages=[],
            record_language=False,
        )
    bilingual.refresh_from_db()
    assert bilingual.languages == ["es"]


def test_removing_a_language_keeps_its_translations_for_when_it_returns(ada, bilingual):
    _translate(bilingual, ada)
    survey = translation_services.survey_languages_update(
        survey=bilingual,
        user=ada,
        source_language="en",
        languages=[],
        record_language=False,
    )
    assert survey.languages == []
    assert survey.translations["es"]["title"] == "Vida estudiantil"


# --- what is missing ----------------------------------------------------------------
def test_an_untranslated_survey_names_every_missing_text(bilingual):
    missing = translations.survey_missing(
        bilingual, list(bilingual.questions.all()), "es"
    )
    assert missing[:3] == ["Title", "Description", "Consent text"]
    assert (
        "Question 2 (“Your year?”): question text, answer labels (0 of 3 translated)"
        in (missing)
    )


def test_a_complete_translation_misses_nothing(ada, bilingual):
    survey = _translate(bilingual, ada)
    assert translations.survey_missing(survey, list(survey.questions.all()), "es") == []


def test_an_empty_answer_label_is_missing(ada, bilingual):
    survey = _translate(
        bilingual, ada, question_texts=_spanish(bilingual, ("Nunca", "", "A menudo"))
    )
    missing = translations.survey_missing(survey, list(survey.questions.all()), "es")
    assert missing == ["Question 2 (“Your year?”): answer labels (2 of 3 translated)"]


def test_a_translation_with_another_number_of_options_is_refused(ada, bilingual):
    with pytest.raises(ValidationError, match="has 3 answer options"):
        _translate(
            bilingual, ada, question_texts=_spanish(bilingual, ("Nunca", "Siempre"))
        )
    assert all(q.translations == {} for q in bilingual.questions.all())


def test_translating_a_language_the_survey_is_not_offered_in_is_refused(ada, bilingual):
    with pytest.raises(ValidationError, match="isn't offered in French"):
        translation_services.translations_update(
            survey=bilingual,
            user=ada,
            language="fr",
            survey_texts=SPANISH_SURVEY,
            question_texts={},
        )


# --- publishing ---------------------------------------------------------------------
def test_publishing_with_an_incomplete_language_is_refused_naming_what_is_missing(
    ada, bilingual
):
    with pytest.raises(ValidationError) as refused:
        services.survey_publish(survey=bilingual, user=ada)
    message = " ".join(refused.value.messages)
    assert "The Spanish translation is incomplete" in message
    assert "Question 1 (“Have you ever cheated on an exam?”): question text" in message
    bilingual.refresh_from_db()
    assert bilingual.status == Survey.Status.DRAFT


def test_a_complete_translation_publishes(ada, bilingual):
    _translate(bilingual, ada)
    assert services.survey_publish(survey=bilingual, user=ada).status == "open"


def test_a_live_survey_offers_a_language_only_while_it_is_complete(
    ada, bilingual, add_question
):
    survey = services.survey_publish(survey=_translate(bilingual, ada), user=ada)
    assert translations.offered_languages(survey, list(survey.questions.all())) == [
        "en",
        "es",
    ]
    add_question(survey, text="Have you ever plagiarised?")
    assert translations.offered_languages(survey, list(survey.questions.all())) == [
        "en"
    ]


def test_editing_a_live_translation_keeps_specs_and_revision(ada, bilingual):
    survey = services.survey_publish(survey=_translate(bilingual, ada), user=ada)
    specs = [q.spec for q in survey.questions.all()]
    survey = _translate(
        survey,
        ada,
        survey_texts={**SPANISH_SURVEY, "title": "La vida en el campus"},
    )
    survey.refresh_from_db()
    assert survey.translations["es"]["title"] == "La vida en el campus"
    assert survey.revision == 1
    assert [q.spec for q in survey.questions.all()] == specs


# --- showing a survey in one language ---------------------------------------------
def test_localizing_swaps_every_text_and_keeps_order_specs_and_logic(ada, bilingual):
    survey = _translate(bilingual, ada)
    source = [
        (q.pk, q.spec, q.show_if, q.kind)
        for q in Survey.objects.get(pk=survey.pk).questions.all()
    ]
    localized = translations.localize_survey(survey, "es")
    assert localized.language == "es"
    assert survey.title == "Vida estudiantil"
    assert survey.consent_text == "¿Acepta?"
    first, second = survey.questions.all()
    assert first.text == "¿Ha copiado alguna vez en un examen?"
    assert second.options == ["Nunca", "A veces", "A menudo"]
    assert [(q.pk, q.spec, q.show_if, q.kind) for q in survey.questions.all()] == source


def test_a_language_the_survey_is_not_offered_in_falls_back_to_the_source(bilingual):
    localized = translations.localize_survey(bilingual, "es")  # incomplete
    assert localized.language == "en"
    assert bilingual.title == "Student life"


def test_a_localized_survey_or_question_refuses_to_be_saved(ada, bilingual):
    survey = _translate(bilingual, ada)
    translations.localize_survey(survey, "es")
    with pytest.raises(RuntimeError, match="must not be saved"):
        survey.save()
    with pytest.raises(RuntimeError, match="must not be saved"):
        survey.questions.all()[0].save()
    assert Survey.objects.get(pk=survey.pk).title == "Student life"
    assert Question.objects.filter(text__startswith="¿").count() == 0


def test_yes_and_no_are_the_sites_words_not_the_surveys(ada, bilingual):
    survey = _translate(bilingual, ada)
    first = survey.questions.all()[0]
    assert "options" not in translations.question_source(first)
    translations.localize_survey(survey, "es")
    assert survey.questions.all()[0].options == list(first.options)


def test_a_grid_translates_its_stem_once_for_every_row(ada, make_survey):
    survey = make_survey()
    services.grid_create(
        survey=survey,
        stem="How often do you",
        items=["sleep in class", "skip class"],
        privacy=PrivacyConfig(kind="ordinal", options=SCALE),
    )
    translation_services.survey_languages_update(
        survey=survey,
        user=ada,
        source_language="en",
        languages=["fr"],
        record_language=False,
    )
    survey.refresh_from_db()
    from surveys.authoring.translation_forms import TranslationForm

    first, second = survey.questions.all()
    form = TranslationForm(
        {
            "survey_title": "Vie étudiante",
            f"q{first.pk}_grid": "À quelle fréquence",
            f"q{first.pk}_item": "dormez-vous en cours",
            f"q{second.pk}_item": "séchez-vous les cours",
            **{
                f"q{first.pk}_option_{i}": w
                for i, w in enumerate(["Jamais", "Parfois", "Souvent"])
            },
        },
        survey=survey,
        language="fr",
    )
    assert f"q{second.pk}_grid" not in form.fields
    assert form.is_valid(), form.errors
    translation_services.translations_update(
        survey=survey,
        user=ada,
        language="fr",
        survey_texts=form.survey_texts(),
        question_texts=form.question_texts(),
    )
    survey = Survey.objects.get(pk=survey.pk)
    assert translations.survey_missing(survey, list(survey.questions.all()), "fr") == []
    translations.localize_survey(survey, "fr")
    rows = list(survey.questions.all())
    assert [row.grid_item for row in rows] == [
        "dormez-vous en cours",
        "séchez-vous les cours",
    ]
    assert {row.grid for row in rows} == {"À quelle fréquence"}
    assert rows[1].options == ["Jamais", "Parfois", "Souvent"]


def test_the_browser_language_is_chosen_when_the_survey_is_offered_in_it():
    request = RequestFactory().get(
        "/", HTTP_ACCEPT_LANGUAGE="de, fr-CA;q=0.8, es;q=0.5"
    )
    assert translations.chosen_language(request, ["en", "es", "fr"]) == "fr"


def test_the_pickers_choice_wins_over_the_browser_language():
    request = RequestFactory().get("/", HTTP_ACCEPT_LANGUAGE="fr")
    request.COOKIES["django_language"] = "es"
    assert translations.chosen_language(request, ["en", "es", "fr"]) == "es"


def test_without_an_offered_language_the_source_language_is_chosen():
    request = RequestFactory().get("/", HTTP_ACCEPT_LANGUAGE="de")
    request.COOKIES["django_language"] = "ar"
    assert translations.chosen_language(request, ["fr", "es"]) == "fr"


# --- builder pages ------------------------------------------------------------------
def test_the_languages_page_lists_what_each_language_misses(ada_client, bilingual):
    response = ada_client.get(
        reverse("authoring:survey_languages", args=[bilingual.pk])
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "incomplete" in page
    assert "not offered to respondents until complete" in page
    assert "Record each response&#x27;s language" in page


def test_the_languages_page_adds_languages_and_the_recorded_field(
    ada_client, bilingual
):
    response = ada_client.post(
        reverse("authoring:survey_languages", args=[bilingual.pk]),
        {"source_language": "en", "languages": ["es", "fr"], "record_language": "on"},
    )
    assert response.status_code == 302
    bilingual.refresh_from_db()
    assert bilingual.languages == ["es", "fr"]
    assert bilingual.record_language is True


def test_the_translation_page_shows_each_source_text_beside_a_labelled_field(
    ada_client, bilingual
):
    url = reverse("authoring:survey_translation", args=[bilingual.pk, "es"])
    page = ada_client.get(url).content.decode()
    second = bilingual.questions.all()[1]
    assert "Sometimes" in page
    assert (
        f'<label for="id_q{second.pk}_option_1">Answer 2 of question 2 in Spanish'
        in (page)
    )
    assert f'aria-describedby="id_q{second.pk}_option_1-source"' in page
    assert 'lang="es"' in page


def test_the_translation_page_saves_and_reports_what_is_still_missing(
    ada_client, bilingual
):
    url = reverse("authoring:survey_translation", args=[bilingual.pk, "es"])
    response = ada_client.post(url, {"survey_title": "Vida estudiantil"}, follow=True)
    assert "Spanish saved; still missing: Description" in response.content.decode()
    bilingual.refresh_from_db()
    assert bilingual.translations["es"] == {"title": "Vida estudiantil"}


def test_the_translation_page_of_a_language_not_declared_is_not_found(
    ada_client, bilingual
):
    url = reverse("authoring:survey_translation", args=[bilingual.pk, "fr"])
    assert ada_client.get(url).status_code == 404


# --- definitions and copies carry the translations --------------------------------
def test_a_definition_carries_languages_and_translations_and_imports_them(
    ada, bob, bilingual
):
    import json
    from pathlib import Path

    import jsonschema

    from surveys.authoring import definitions

    survey = _translate(bilingual, ada)
    document = json.loads(definitions.definition_json(survey))
    schema = json.loads(
        (
            Path(__file__).resolve().parents[3]
            / "docs"
            / "survey-definition.schema.json"
        ).read_text()
    )
    jsonschema.validate(document, schema)
    assert document["survey"]["languages"] == ["es"]
    copy = definitions.definition_import(owner=bob, document=document)
    assert copy.languages == ["es"]
    assert copy.translations["es"]["title"] == "Vida estudiantil"
    assert [q.translations for q in copy.questions.all()] == [
        q.translations for q in survey.questions.all()
    ]


def test_a_definition_without_languages_says_nothing_about_them(make_survey):
    from surveys.authoring import definitions

    document = definitions.definition_document(make_survey())
    assert "languages" not in document["survey"]
    assert "translations" not in document["survey"]


def test_an_imported_translation_with_another_number_of_options_is_refused(
    ada, bob, bilingual
):
    from surveys.authoring import definitions

    survey = _translate(bilingual, ada)
    document = definitions.definition_document(survey)
    document["questions"][1]["translations"]["es"]["options"] = ["Nunca"]
    with pytest.raises(ValidationError, match="has 3 answer options"):
        definitions.definition_import(owner=bob, document=document)
    assert not Survey.objects.filter(owner=bob).exists()


def test_a_duplicate_keeps_the_languages_and_translations(ada, bilingual):
    survey = _translate(bilingual, ada)
    copy = services.survey_duplicate(survey=survey, user=ada)
    assert copy.languages == ["es"]
    assert copy.translations == survey.translations
    assert [q.translations for q in copy.questions.all()] == [
        q.translations for q in survey.questions.all()
    ]
