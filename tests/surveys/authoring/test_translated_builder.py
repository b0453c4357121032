"""The builder's own pages in Spanish and French (docs/translations.md).

The browser's Accept-Language, or the language picker's cookie, picks the
language of the builder's wording; what the researcher typed (titles,
questions, answer labels), ids and the values of number inputs stay exactly
as they are in English.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from surveys.authoring.models import Survey

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"
# The builder's templates, and the site-wide ones this area owns.
AREA = [
    *sorted((TEMPLATES / "authoring").glob("*.html")),
    TEMPLATES / "home.html",
    TEMPLATES / "base.html",
]
TAG_OR_VARIABLE = re.compile(r"{%.*?%}|{{.*?}}|{#.*?#}|<[^>]*>", re.S)
WORD = re.compile(r"[A-Za-z]{3,}")


def _get(client, url, language, *, cookie=False):
    if cookie:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        return client.get(url)
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language)


def _budget_survey(make_survey, add_question):
    survey = make_survey(title="Vida y salud", epsilon_budget=2.5)
    add_question(survey, text="¿Ha copiado alguna vez?")
    add_question(
        survey,
        kind="single_choice",
        text="Which faculty?",
        options=("Arts", "Science", "Law"),
        is_private=False,
        acknowledged=True,
    )
    return survey


@pytest.mark.parametrize("path", AREA, ids=lambda p: p.name)
def test_every_template_of_the_builder_with_visible_text_loads_i18n(path):
    source = path.read_text(encoding="utf-8")
    visible = WORD.findall(TAG_OR_VARIABLE.sub(" ", source))
    if visible:
        assert "{% load i18n" in source or re.search(
            r"{% load [^%]*\bi18n\b", source
        ), f"{path.name} shows text ({visible[:3]}) without loading i18n"


@pytest.mark.parametrize(
    ("language", "heading", "new_survey"),
    [
        ("es", "Mis encuestas", "Nueva encuesta"),
        ("fr", "Mes enquêtes", "Nouvelle enquête"),
    ],
)
def test_the_survey_list_is_in_the_browsers_language(
    ada_client, make_survey, add_question, language, heading, new_survey
):
    _budget_survey(make_survey, add_question)
    html = _get(ada_client, reverse("authoring:survey_list"), language).content.decode()
    assert f"<h1>{heading}</h1>" in html
    assert new_survey in html
    assert "Vida y salud" in html  # the researcher's title, untouched
    assert "My surveys" not in html


@pytest.mark.parametrize(
    ("language", "budget", "protected", "options"),
    [
        ("es", "presupuesto de <strong>2,500</strong>", "Protegida", "3 opciones"),
        ("fr", "sur un budget de <strong>2,500</strong>", "Protégée", "3 options"),
    ],
)
def test_the_survey_page_localizes_numbers_and_plurals_but_not_the_survey(
    ada_client, make_survey, add_question, language, budget, protected, options
):
    survey = _budget_survey(make_survey, add_question)
    url = reverse("authoring:survey_detail", args=[survey.pk])
    html = _get(ada_client, url, language).content.decode()
    assert budget in html
    assert protected in html
    assert options in html
    # The researcher's texts and the machine-read parts stay as they were.
    assert "¿Ha copiado alguna vez?" in html
    assert "Which faculty?" in html
    assert 'max="2.5"' in html  # the meter's bound, in the C locale
    assert f'id="question-{survey.questions.first().pk}"' in html


@pytest.mark.parametrize(
    ("language", "one", "many"),
    [
        ("es", "1 respuesta", "2 respuestas"),
        ("fr", "1 réponse", "2 réponses"),
    ],
)
def test_the_schedule_summary_uses_each_languages_plural(
    ada_client, make_survey, language, one, many
):
    survey = make_survey()
    survey.close_at_responses = 1
    survey.save(update_fields=["close_at_responses"])
    url = reverse("authoring:survey_detail", args=[survey.pk])
    assert one in _get(ada_client, url, language).content.decode()
    survey.close_at_responses = 2
    survey.save(update_fields=["close_at_responses"])
    assert many in _get(ada_client, url, language).content.decode()


@pytest.mark.parametrize(
    ("language", "legend", "label"),
    [
        ("es", "Privacidad", "ε de esta pregunta"),
        ("fr", "Confidentialité", "ε de cette question"),
    ],
)
def test_the_question_form_is_translated_and_its_number_inputs_stay_c_locale(
    ada_client, make_survey, add_question, language, legend, label
):
    survey = make_survey()
    question = add_question(survey, epsilon=1.5)
    url = reverse("authoring:question_edit", args=[survey.pk, question.pk])
    html = _get(ada_client, url, language, cookie=True).content.decode()
    assert f"<legend>{legend}</legend>" in html
    assert label in html
    assert 'name="requested_epsilon" value="1.5"' in html
    assert 'name="plan-margin" value="5"' in html
    assert "Have you ever cheated on an exam?" in html


@pytest.mark.parametrize("language", ["es", "fr"])
def test_a_question_saved_from_a_translated_form_keeps_its_decimal_epsilon(
    ada_client, make_survey, language
):
    survey = make_survey()
    url = reverse("authoring:question_create", args=[survey.pk])
    response = ada_client.post(
        url,
        {
            "kind": "yes_no",
            "text": "¿Ha mentido?",
            "protection": "protected",
            "requested_epsilon": "0.75",
            "design": "symmetric",
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 302
    question = survey.questions.get()
    assert question.requested_epsilon == 0.75
    assert question.text == "¿Ha mentido?"
    page = ada_client.get(response["Location"], HTTP_ACCEPT_LANGUAGE=language)
    added = {"es": "Pregunta añadida.", "fr": "Question ajoutée."}[language]
    assert added in page.content.decode()


@pytest.mark.parametrize(
    ("language", "error"),
    [
        ("es", "No se guardó nada."),
        ("fr", "Rien n’a été enregistré."),
    ],
)
def test_a_refused_form_says_so_in_the_browsers_language_and_changes_nothing(
    ada_client, language, error
):
    response = ada_client.post(
        reverse("authoring:survey_create"),
        {"title": "", "epsilon_budget": "4", "planned_respondents": "100"},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Survey.objects.exists()


def test_english_stays_the_default_without_a_preference(ada_client, make_survey):
    make_survey()
    html = ada_client.get(reverse("authoring:survey_list")).content.decode()
    assert "<h1>My surveys</h1>" in html
