"""The methods paragraph: on the results page and as methods.txt."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

import ldp
from surveys.analysis.exports import methods
from surveys.analysis.reading import latest_results
from surveys.collection.assets import randomizer_script
from surveys.version import deniable_version
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(ada):
    survey = make_survey(ada)
    simulate(survey, 60)
    return survey


def test_methods_text_names_mechanisms_epsilon_n_intervals_version_and_fingerprint(
    ada_client, answered
):
    response = ada_client.get(
        reverse("analysis:export_methods_txt", args=[answered.pk])
    )
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    text = response.content.decode()
    assert f"Deniable {deniable_version()}" in text
    assert randomizer_script().integrity in text
    for question in answered.questions.filter(is_private=True):
        mechanism = ldp.build(question.spec)
        assert f"“{question.text}”" in text
        assert f"ε = {float(f'{mechanism.epsilon:.3g}'):g}" in text
    assert "sequential composition" in text and "reports" in text
    assert "Clopper–Pearson" in text


def test_the_results_page_shows_the_methods_paragraph_in_the_readers_language(
    ada_client, answered
):
    url = reverse("analysis:dashboard", args=[answered.pk])
    english = ada_client.get(url).content.decode()
    assert 'data-field="methods"' in english
    assert "randomized on each respondent" in english
    results = latest_results(answered)
    with translation.override("fr"):
        french = methods.methods_shown(results)
    assert "randomized on each respondent" not in french
    assert randomizer_script().integrity in french
