"""The builder's error messages in Spanish and French (docs/translations.md).

The checks behind the builder (privacy settings, forced-response designs,
numeric grids, grids, publishing, the budget, imports) say what is wrong in
the visitor's language, with numbers written the language's way (decimal
comma); the check itself, and what it refuses, do not change: nothing is
saved.
"""

from __future__ import annotations

import html
import json

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.models import Question, Survey

pytestmark = pytest.mark.django_db

NBSP = "\u00a0"


def _post(client, url, data, language, *, cookie=False):
    if cookie:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        return client.post(url, data)
    return client.post(url, data, HTTP_ACCEPT_LANGUAGE=language)


def _text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.mark.parametrize(
    ("language", "cookie", "message"),
    [
        (
            "es",
            False,
            "Los tres porcentajes suman 99,5 %; deben sumar exactamente 100.",
        ),
        (
            "fr",
            True,
            f"Les trois pourcentages totalisent 99,5{NBSP}%{NBSP}; ils doivent "
            "totaliser exactement 100.",
        ),
    ],
)
def test_a_custom_split_not_adding_up_to_100_is_refused_in_the_visitors_language(
    ada_client, make_survey, language, cookie, message
):
    survey = make_survey()
    response = _post(
        ada_client,
        reverse("authoring:question_create", args=[survey.pk]),
        {
            "kind": "yes_no",
            "text": "¿Ha mentido?",
            "protection": "protected",
            "requested_epsilon": "1",
            "design": "custom",
            "fr_truthful": "70.5",
            "fr_forced_yes": "20",
            "fr_forced_no": "9",
        },
        language,
        cookie=cookie,
    )
    assert response.status_code == 200
    page = _text(response)
    assert message in page
    assert "add up to" not in page
    # The researcher's input comes back as typed, in the C locale.
    assert 'name="fr_truthful" value="70.5"' in page
    assert not Question.objects.exists()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "es",
            "ε = 0,02 es demasiado pequeño para 201 valores posibles; se admite: "
            f"al menos 0,0201 (valores ÷ 10{NBSP}000, y nunca menos de 0,01)",
        ),
        (
            "fr",
            f"ε = 0,02 est trop petit pour 201 valeurs possibles{NBSP}; admis{NBSP}: "
            f"au moins 0,0201 (valeurs ÷ 10{NBSP}000, et jamais moins de 0,01)",
        ),
    ],
)
def test_a_too_small_epsilon_for_a_fine_numeric_grid_is_explained_with_local_numbers(
    ada_client, make_survey, language, message
):
    survey = make_survey()
    response = _post(
        ada_client,
        reverse("authoring:question_create", args=[survey.pk]),
        {
            "kind": "numeric",
            "text": "¿Cuántas horas?",
            "protection": "protected",
            "requested_epsilon": "0.02",
            "design": "symmetric",
            "numeric_low": "0",
            "numeric_high": "200",
            "numeric_step": "1",
        },
        language,
    )
    page = _text(response)
    assert message in page
    assert "is too small" not in page
    assert 'name="requested_epsilon" value="0.02"' in page
    assert not Question.objects.exists()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("es", "Dé al menos 2 opciones, una por línea (se recibieron 1)."),
        ("fr", f"Donnez au moins 2 options, une par ligne (reçu{NBSP}: 1)."),
    ],
)
def test_a_choice_question_with_one_option_is_refused_in_the_visitors_language(
    ada_client, make_survey, language, message
):
    survey = make_survey()
    response = _post(
        ada_client,
        reverse("authoring:question_create", args=[survey.pk]),
        {
            "kind": "single_choice",
            "text": "¿Qué facultad?",
            "options": "Artes",
            "protection": "protected",
            "requested_epsilon": "1",
            "design": "symmetric",
        },
        language,
    )
    page = _text(response)
    assert message in page
    assert "Give at least" not in page
    assert not Question.objects.exists()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("es", "1 elemento; una cuadrícula tiene de 2 a 20, uno por línea."),
        ("fr", f"1 élément{NBSP}; une grille en a de 2 à 20, un par ligne."),
    ],
)
def test_a_grid_with_one_item_is_refused_with_the_languages_singular(
    ada_client, make_survey, language, message
):
    survey = make_survey()
    response = _post(
        ada_client,
        reverse("authoring:grid_create", args=[survey.pk]),
        {
            "stem": "¿Con qué frecuencia…?",
            "items": "Copiar",
            "options": "Nunca\nA veces\nA menudo",
            "requested_epsilon": "1",
        },
        language,
    )
    assert response.status_code == 200
    page = _text(response)
    assert message in page
    assert "items; a grid has" not in page
    assert not Question.objects.exists()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("es", "Añada al menos una pregunta antes de publicar."),
        ("fr", "Ajoutez au moins une question avant de publier."),
    ],
)
def test_publishing_an_empty_survey_is_refused_in_the_visitors_language(
    ada_client, make_survey, language, message
):
    survey = make_survey()
    response = _post(
        ada_client, reverse("authoring:survey_publish", args=[survey.pk]), {}, language
    )
    page = ada_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE=language)
    assert message in _text(page)
    survey.refresh_from_db()
    assert survey.status == Survey.Status.DRAFT
    assert survey.published_at is None


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "es",
            "por encima del presupuesto de esta encuesta, 0,5. Baje el ε de una "
            "pregunta, quite una pregunta o aumente el presupuesto.",
        ),
        (
            "fr",
            "au-delà du budget de cette enquête, 0,5. Abaissez le ε d’une "
            "question, retirez une question ou augmentez le budget.",
        ),
    ],
)
def test_publishing_over_budget_is_refused_with_the_budget_in_local_digits(
    ada_client, make_survey, add_question, language, message
):
    survey = make_survey(epsilon_budget=0.5)
    question = add_question(survey, epsilon=1.0)
    response = _post(
        ada_client, reverse("authoring:survey_publish", args=[survey.pk]), {}, language
    )
    page = _text(ada_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE=language))
    assert message in page
    assert "Nothing was changed" not in page
    survey.refresh_from_db()
    question.refresh_from_db()
    assert survey.status == Survey.Status.DRAFT
    assert question.spec_revisions.count() == 0


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "es",
            "Esta definición tiene la versión 2; este servidor lee la versión 1. "
            "Expórtela de nuevo desde un Deniable compatible. No se importó nada.",
        ),
        (
            "fr",
            f"Cette définition est en version 2{NBSP}; ce serveur lit la version 1. "
            "Exportez-la de nouveau depuis un Deniable compatible. Rien n’a été "
            "importé.",
        ),
    ],
)
def test_an_import_of_another_version_is_refused_in_the_visitors_language(
    ada_client, language, message
):
    document = {"format": "deniable.survey-definition", "version": 2}
    upload = SimpleUploadedFile(
        "survey.json", json.dumps(document).encode(), content_type="application/json"
    )
    response = _post(
        ada_client,
        reverse("authoring:survey_import"),
        {"definition": upload},
        language,
    )
    assert response.status_code == 400
    page = _text(response)
    assert message in page
    assert not Survey.objects.exists()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "es",
            "Pregunta 1 («¿Ha mentido?»), fr truthful: El porcentaje sincero es 0 %; "
            "se admite: "
            "más de 0.",
        ),
        (
            "fr",
            f"Question 1 («{NBSP}¿Ha mentido?{NBSP}»), fr truthful{NBSP}: Le "
            f"pourcentage sincère est de 0{NBSP}%{NBSP}; admis{NBSP}: plus de 0.",
        ),
    ],
)
def test_an_import_with_a_bad_design_names_the_question_in_the_visitors_language(
    ada_client, language, message
):
    document = {
        "format": "deniable.survey-definition",
        "version": 1,
        "survey": {"title": "Vida"},
        "questions": [
            {
                "kind": "yes_no",
                "text": "¿Ha mentido?",
                "design": {
                    "type": "custom",
                    "truthful": "0",
                    "forced_yes": "1/2",
                    "forced_no": "1/2",
                },
            }
        ],
    }
    upload = SimpleUploadedFile("survey.json", json.dumps(document).encode())
    response = _post(
        ada_client, reverse("authoring:survey_import"), {"definition": upload}, language
    )
    page = _text(response)
    assert message in page
    assert not Survey.objects.exists()
    assert not Question.objects.exists()


def test_without_a_preference_the_errors_stay_in_english(ada_client, make_survey):
    survey = make_survey()
    response = ada_client.post(
        reverse("authoring:survey_publish", args=[survey.pk]), {}, follow=True
    )
    assert "Add at least one question before publishing." in _text(response)


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (
            "es",
            "Solo se puede cerrar una encuesta abierta; esta está en estado "
            "«borrador».",
        ),
        (
            "fr",
            f"Seule une enquête ouverte peut être fermée{NBSP}; celle-ci est à "
            f"l’état «{NBSP}brouillon{NBSP}».",
        ),
        ("en", "Only an open survey can be closed; this one is draft."),
    ],
)
def test_a_refusal_to_close_names_the_status_in_the_visitors_language(
    ada_client, make_survey, language, message
):
    survey = make_survey()
    response = _post(
        ada_client,
        reverse("authoring:survey_close", args=[survey.pk]),
        {},
        language,
        cookie=True,
    )
    page = _text(ada_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE=language))
    assert message in page
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.DRAFT


@pytest.mark.parametrize(
    ("language", "status"), [("es", "«abierta»"), ("fr", f"«{NBSP}ouverte{NBSP}»")]
)
def test_a_refusal_to_reopen_names_the_status_in_the_visitors_language(
    ada_client, survey, ada, language, status
):
    services.survey_publish(survey=survey, user=ada)
    response = _post(
        ada_client,
        reverse("authoring:survey_reopen", args=[survey.pk]),
        {},
        language,
        cookie=True,
    )
    page = _text(ada_client.get(response["Location"]))
    assert status in page
