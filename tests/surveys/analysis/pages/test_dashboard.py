"""The dashboard: every question kind renders, and shows ldp's own numbers."""

# Parsing the SVG this project generated itself, not untrusted input.
# ruff: noqa: S314

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

import ldp
from surveys.analysis.pages import dashboard, freshness, numbers
from surveys.analysis.results import bins
from surveys.analysis.results.objects import Interval, QuestionResult, SurveyResults
from surveys.authoring import services as authoring
from tests.surveys.analysis.dashboard_support import (
    make_survey,
    reference_estimates,
    simulate,
)
from tests.surveys.stored_reports import payloads

pytestmark = pytest.mark.django_db


ANSWERED_RESPONDENTS = 400  # the module's kept survey (conftest.py)


def _card(html: str, question_id: int) -> str:
    match = re.search(
        rf'<section class="result-card" id="q{question_id}".*?</section>', html, re.S
    )
    assert match, f"no result card for question {question_id}"
    return match.group(0)


def test_dashboard_renders_a_card_for_every_private_question_kind(ada_client, answered):
    response = ada_client.get(reverse("analysis:dashboard", args=[answered.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    private = answered.questions.filter(is_private=True)
    assert {q.kind for q in private} == {
        "yes_no",
        "single_choice",
        "ordinal",
        "numeric",
        "multi_select",
    }
    for question in private:
        card = _card(html, question.pk)
        assert '<dd data-field="n">400</dd>' in card
        assert "<table" in card
    assert "Which year are you in?" in html  # listed as not protected


def test_dashboard_shows_the_estimates_ldp_computes_from_the_same_reports(
    ada_client, answered
):
    html = ada_client.get(reverse("analysis:dashboard", args=[answered.pk])).content
    html = html.decode()
    kinds = dict(answered.questions.values_list("pk", "kind"))
    for question_id, estimate in reference_estimates(answered).items():
        card = _card(html, question_id)
        shown = re.findall(r'<td data-field="estimate">(-?[\d.]+)%</td>', card)
        expected = [f"{v * 100:.1f}" for v in estimate.estimate]
        if kinds[question_id] in ("ordinal", "numeric"):
            assert shown == []  # the per-level table is in the exports only
        else:
            assert shown == expected[: dashboard.TABLE_ROWS_MAX]
        mean = estimate.mean()  # ordinal and numeric questions
        if mean is not None:
            assert f'data-field="mean">{numbers.number(mean.estimate)}<' in card


def test_every_chart_on_the_dashboard_is_well_formed_accessible_svg(
    ada_client, answered
):
    html = ada_client.get(reverse("analysis:dashboard", args=[answered.pk])).content
    svgs = re.findall(r"<svg.*?</svg>", html.decode(), re.S)
    assert len(svgs) == answered.questions.filter(is_private=True).count()
    for svg in svgs:
        root = ET.fromstring(svg)
        tags = [child.tag.split("}")[-1] for child in root]
        assert tags[:2] == ["title", "desc"]
        assert root.get("role") == "img"


def test_dashboard_page_has_no_inline_script_or_style(ada_client, answered):
    html = ada_client.get(reverse("analysis:dashboard", args=[answered.pk])).content
    html = html.decode()
    assert "<style" not in html
    assert " style=" not in html
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []
    assert "js/dashboard.js" in html


def test_dashboard_shows_the_surveys_state_as_it_is_now(ada_client, ada, answered):
    url = reverse("analysis:dashboard", args=[answered.pk])
    assert 'data-state="open"' in ada_client.get(url).content.decode()
    authoring.survey_close(survey=answered, user=ada)
    assert 'data-state="closed"' in ada_client.get(url).content.decode()


def test_live_endpoint_returns_the_fragment_and_freshness(ada_client, answered):
    response = ada_client.get(reverse("analysis:dashboard_live", args=[answered.pk]))
    assert response.status_code == 200
    data = response.json()
    assert data["pending_reports"] == 0
    assert data["computed"] is True and data["responses"] == 400
    assert data["freshness"].startswith("computed ")
    assert data["freshness"].endswith(" ago from 400 responses")
    assert 'class="result-card"' in data["html"]
    assert "<html" not in data["html"]


def test_dashboard_works_without_javascript_through_a_refresh_link(
    ada_client, answered
):
    url = reverse("analysis:dashboard", args=[answered.pk])
    html = ada_client.get(url).content.decode()
    assert f'href="{url}" class="refresh-link"' in html


def test_pending_reports_are_counted_until_tallied(ada_client, ada):
    survey = make_survey(ada)
    simulate(survey, 50)
    from surveys.analysis.models import ResultSnapshot, TallyWatermark

    TallyWatermark.objects.filter(survey=survey).update(last_report_id=0)
    ResultSnapshot.objects.filter(survey=survey).delete()
    data = ada_client.get(reverse("analysis:dashboard_live", args=[survey.pk])).json()
    assert data["pending_reports"] == 50 * 7


def test_dashboard_renders_a_survey_without_responses(ada_client, ada):
    survey = make_survey(ada)
    response = ada_client.get(reverse("analysis:dashboard", args=[survey.pk]))
    assert response.status_code == 200
    assert "No reports yet" in response.content.decode()


def _results(computed_at, responses, pending) -> SurveyResults:
    return SurveyResults(
        1,
        "t",
        1.0,
        [],
        [],
        None,
        pending * 7,
        computed_at=computed_at,
        responses=responses,
        pending_responses=pending,
        version=1,
    )


def test_freshness_reads_seconds_ago_responses_and_newer_ones():
    now = timezone.now()
    text = freshness.freshness(_results(now - timedelta(seconds=12), 4812, 3), now=now)
    assert text == (
        "computed 12 s ago from 4,812 responses; 3 newer responses being added"
    )


def test_freshness_says_fewer_than_k_newer_responses_are_held_back_and_why(settings):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    now = timezone.now()
    text = freshness.freshness(_results(now - timedelta(seconds=12), 40, 3), now=now)
    assert text == (
        "computed 12 s ago from 40 responses; 3 responses held back until 7 more "
        "arrive: releasing fewer than 10 could single out a respondent"
    )


def test_freshness_of_a_closed_survey_says_held_responses_stay_stored(settings):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    now = timezone.now()
    text = freshness.freshness(_results(now, 60, 1), now=now, closed=True)
    assert text.endswith(
        "; 1 response held back because releasing fewer than 10 could single "
        "out a respondent; the survey is closed, so it stays stored and is "
        "released only if the survey reopens and a batch of 10 is reached"
    )


def test_freshness_names_no_newer_responses_when_there_are_none():
    now = timezone.now()
    text = freshness.freshness(_results(now - timedelta(minutes=5), 1, 0), now=now)
    assert text == "computed 5 min ago from 1 response"


def test_freshness_caps_a_backlog_of_newer_responses():
    now = timezone.now()
    text = freshness.freshness(_results(now, 10, 10_001), now=now)
    assert text.endswith("; more than 10,000 newer responses being added")


def test_freshness_says_when_no_results_were_computed_yet():
    assert freshness.freshness(None).startswith("results not computed yet")


def test_card_formats_shares_as_percent_and_keeps_estimates_outside_zero_one():
    result = QuestionResult(
        question_id=1,
        position=1,
        text="Q",
        kind="single_choice",
        spec_revision=1,
        mechanism="oue",
        mechanism_label="Optimized unary encoding",
        epsilon=1.0,
        n=100,
        labels=["A", "B"],
        estimate=[-0.05, 1.05],
        standard_error=[0.1, 0.1],
        intervals=[Interval(-0.25, 0.15), Interval(0.85, 1.25)],
        interval_method="exact",
        consistent=[0.0, 1.0],
        mean=None,
        mean_standard_error=None,
        mean_interval=None,
        margin_of_error=0.2,
        target_margin=0.05,
        responses_needed=1500,
        influence_factor=0.042,
        warnings=[],
    )
    card = dashboard.question_card(result)
    assert [r.estimate for r in card.rows] == ["-5.0%", "105.0%"]
    assert card.margin == "20.0 percentage points"
    assert card.target == "5.0 percentage points"
    assert card.influence == "4.2 percentage points"
    ET.fromstring(str(card.chart))


def _shares_result(estimate, intervals) -> QuestionResult:
    return QuestionResult(
        question_id=1,
        position=1,
        text="Which of these have you done?",
        kind="multi_select",
        spec_revision=1,
        mechanism="multi_rr",
        mechanism_label="Randomized response per option",
        epsilon=2.0,
        n=400,
        labels=["A", "B", "C"],
        estimate=estimate,
        standard_error=[0.05] * len(estimate),
        intervals=intervals,
        interval_method="exact",
        consistent=None,
        mean=None,
        mean_standard_error=None,
        mean_interval=None,
        margin_of_error=0.1,
        target_margin=0.05,
        responses_needed=100,
        influence_factor=0.04,
        warnings=[],
    )


def test_an_estimate_outside_its_cut_interval_is_marked_and_explained():
    card = dashboard.question_card(
        _shares_result(
            [-0.076, 0.4, 1.02],
            [Interval(0.0, 0.102), Interval(0.3, 0.5), Interval(0.9, 1.0)],
        )
    )
    assert [r.outside for r in card.rows] == ["below", "", "above"]
    assert "below 0% or above 100%" in card.outside_note
    assert "outside its interval" in card.outside_note
    assert "nearest bound" in card.outside_note  # multi-select: no consistent column


def test_estimates_inside_their_intervals_carry_no_mark_or_note():
    card = dashboard.question_card(
        _shares_result(
            [0.05, 0.4, 0.9],
            [Interval(0.0, 0.15), Interval(0.3, 0.5), Interval(0.8, 1.0)],
        )
    )
    assert [r.outside for r in card.rows] == ["", "", ""]
    assert card.outside_note == ""


def test_the_results_table_marks_the_estimate_outside_its_interval():
    from types import SimpleNamespace

    from django.template.loader import render_to_string

    card = dashboard.question_card(
        _shares_result(
            [-0.076, 0.4, 0.5],
            [Interval(0.0, 0.102), Interval(0.3, 0.5), Interval(0.4, 0.6)],
        )
    )
    html = render_to_string(
        "analysis/_results_body.html",
        {
            "cards": [card],
            "results": SimpleNamespace(total_epsilon=2.0, not_protected=[]),
            "survey": SimpleNamespace(pk=1),
            "simulated": True,
        },
    )
    assert html.count('data-outside="below"') == 1
    assert 'data-field="outside-note"' in html


def test_scale_and_number_cards_show_the_median_and_the_bins_ldp_computes(
    ada_client, answered
):
    html = ada_client.get(reverse("analysis:dashboard", args=[answered.pk])).content
    html = html.decode()
    for question in answered.questions.filter(kind__in=["ordinal", "numeric"]):
        mechanism = ldp.build(question.spec)
        reports = payloads(
            question.reports.filter(spec_revision=question.spec_revision).order_by("id")
        )
        stat = mechanism.aggregate(reports)
        numeric = question.kind == "numeric"
        cuts = bins.default_cuts(mechanism.input_values()) if numeric else None
        fit = ldp.mechanism_distribution(mechanism, stat, cuts)
        card = _card(html, question.pk)
        shares = re.findall(r'<td data-field="bin-share">([\d.]+)%</td>', card)
        assert shares == [f"{v * 100:.1f}" for v in fit.shares]
        assert f'data-field="median">{fit.median:g}<' in card
        assert "constrained maximum likelihood, Wald and Woodruff intervals" in card
        assert ("Group answers into other bins" in card) == numeric
