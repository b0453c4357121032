"""The privacy view's Gaussian-DP profile and group privacy."""

from __future__ import annotations

import math

import pytest
from django.urls import reverse
from scipy.stats import norm

from ldp import accounting
from surveys.analysis.pages.privacy import DELTA_EPSILONS, survey_privacy_view
from surveys.analysis.templatetags.privacy_numbers import epsilon_text
from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig

pytestmark = pytest.mark.django_db


@pytest.fixture
def warner(ada):
    survey = services.survey_create(owner=ada, title="Two yes/no", epsilon_budget=5)
    for text in ("Cheated?", "Lied?"):
        services.question_create(
            survey=survey,
            text=text,
            privacy=PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="warner"),
        )
    return services.survey_publish(survey=survey, user=ada)


def test_a_yes_no_questions_mu_is_the_closed_form_of_randomized_response(warner):
    view = survey_privacy_view(warner)
    epsilon = view.questions[0].epsilon
    closed_form = 2 * norm.ppf(math.exp(epsilon) / (1 + math.exp(epsilon)))
    assert view.questions[0].mu == pytest.approx(closed_form, abs=1e-9)


def test_the_surveys_mu_composes_as_the_root_sum_of_squares(warner):
    view = survey_privacy_view(warner)
    mus = [q.mu for q in view.questions]
    assert view.mu == pytest.approx(math.hypot(*mus))


def test_the_delta_profile_is_that_of_the_surveys_mu(warner):
    view = survey_privacy_view(warner)
    expected = accounting.gdp_delta(view.mu, DELTA_EPSILONS)
    assert [d for _, d in view.delta_profile] == pytest.approx(list(expected))
    deltas = [d for _, d in view.delta_profile]
    assert deltas == sorted(deltas, reverse=True)  # δ falls as ε grows


def test_group_privacy_multiplies_epsilon_and_mu_by_k(warner):
    view = survey_privacy_view(warner)
    for k, epsilon, mu in view.groups:
        assert epsilon == pytest.approx(k * view.sequential_epsilon)
        assert mu == pytest.approx(k * view.mu)


def test_the_privacy_page_shows_mu_the_delta_table_and_the_group_table(
    ada_client, warner
):
    view = survey_privacy_view(warner)
    html = ada_client.get(reverse("analysis:privacy", args=[warner.pk])).content
    html = html.decode()
    assert f'data-field="mu">{epsilon_text(view.mu)}<' in html
    assert 'id="delta-profile"' in html
    three = epsilon_text(3 * view.sequential_epsilon)
    assert f'data-group-epsilon="3">{three}<' in html


def test_a_group_size_asked_for_adds_its_row_to_the_group_table(warner):
    view = survey_privacy_view(warner, group_size=7)
    rows = {k: (epsilon, mu) for k, epsilon, mu in view.groups}
    assert rows[7] == (
        pytest.approx(accounting.group_epsilon(view.sequential_epsilon, 7)),
        pytest.approx(accounting.group_mu(view.mu, 7)),
    )
    assert [k for k, _, _ in view.groups] == [1, 2, 3, 4, 5, 7, 10]


def test_the_privacy_page_shows_k_times_epsilon_for_the_k_typed_in(ada_client, warner):
    view = survey_privacy_view(warner)
    url = reverse("analysis:privacy", args=[warner.pk])
    html = ada_client.get(url, {"k": "25"}).content.decode()
    expected = epsilon_text(25 * view.sequential_epsilon)
    assert f'data-group-epsilon="25">{expected}<' in html
    assert 'id="group-asked"' in html


@pytest.mark.parametrize("k", ["0", "-3", "1001", "two", "2.5"])
def test_the_privacy_page_refuses_a_bad_group_size_with_a_message(
    ada_client, warner, k
):
    url = reverse("analysis:privacy", args=[warner.pk])
    response = ada_client.get(url, {"k": k})
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="errorlist' in html
    assert 'id="group-asked"' not in html
    assert 'data-group-epsilon="10"' in html  # the standard table stays


def test_the_delta_curve_is_that_of_the_surveys_mu_up_to_the_pure_epsilon(warner):
    view = survey_privacy_view(warner)
    epsilons = [e for e, _ in view.delta_curve]
    assert epsilons[0] == 0 and epsilons[-1] == max(8.0, view.sequential_epsilon)
    expected = accounting.gdp_delta(view.mu, epsilons)
    assert [d for _, d in view.delta_curve] == pytest.approx(list(expected))


def test_the_privacy_page_draws_the_delta_curve_as_an_accessible_chart(
    client, ada, warner
):
    import xml.etree.ElementTree as ET

    client.force_login(ada)
    page = client.get(reverse("analysis:privacy", args=[warner.pk])).content.decode()
    figure = page.index('data-field="delta-chart"')
    start = page.index("<svg", figure)
    svg = ET.fromstring(page[start : page.index("</svg>", start) + len("</svg>")])  # noqa: S314
    ns = "{http://www.w3.org/2000/svg}"
    assert svg.get("aria-labelledby") == "delta-curve-title"
    assert svg.get("aria-describedby") == "delta-curve-desc"
    assert "δ(ε)" in svg.find(f"{ns}title").text
    assert "pure ε" in svg.find(f"{ns}desc").text  # read out by screen readers
    assert svg.find(f"{ns}polyline") is not None
