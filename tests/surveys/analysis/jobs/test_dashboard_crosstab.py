"""Cross-tabs, breakdowns and the privacy page, against ldp on the raw reports."""

# Parsing the SVG this project generated itself, not untrusted input.
# ruff: noqa: S314

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from django.urls import reverse

import ldp
from ldp.accounting import sequential_composition
from ldp.estimators.crosstab import crosstab_estimate, joint_histogram
from surveys.analysis.jobs import crosstabs
from surveys.analysis.pages import numbers
from surveys.analysis.templatetags.privacy_numbers import epsilon_text
from tests.surveys.stored_reports import payloads

pytestmark = pytest.mark.django_db


def _by_mechanism(survey):
    return {
        (q.spec["mechanism"] if q.is_private else "plain"): q
        for q in survey.questions.all()
    }


def _paired_reports(qa, qb):
    a = dict(payloads(qa.reports.all(), "submission_id"))
    b = dict(payloads(qb.reports.all(), "submission_id"))
    both = sorted(set(a) & set(b))
    return [a[s] for s in both], [b[s] for s in both]


def test_crosstab_page_shows_the_kronecker_debiased_table(ada_client, answered):
    q = _by_mechanism(answered)
    qa, qb = q["warner"], q["ordinal"]
    ya, yb = _paired_reports(qa, qb)
    ma, mb = ldp.build(qa.spec), ldp.build(qb.spec)
    counts = joint_histogram(
        np.array(ya), np.array(yb), ma.channel_matrix().shape[1], mb.k
    )
    expected = crosstab_estimate(counts, ma.channel_matrix(), mb.channel_matrix())
    url = reverse("analysis:crosstab", args=[answered.pk])
    html = ada_client.get(url, {"a": qa.pk, "b": qb.pk}).content.decode()
    shown = re.findall(r'data-field="cell">(-?[\d.]+)%<', html)
    # Unbiased estimates beyond 0% or 100% are shown at that end, marked.
    cut = np.clip(expected.estimate.reshape(-1), 0.0, 1.0)
    assert shown == [f"{v * 100:.1f}" for v in cut]
    marked = html.count("<span data-cut>*</span>")
    assert marked == int(np.sum(cut != expected.estimate.reshape(-1)))
    assert 'data-field="crosstab-n">300<' in html


def test_crosstab_refuses_a_mechanism_without_a_finite_channel(ada_client, answered):
    q = _by_mechanism(answered)
    url = reverse("analysis:crosstab", args=[answered.pk])
    html = ada_client.get(url, {"a": q["warner"].pk, "b": q["oue"].pk}).content
    assert "Cross-tabs need a finite-channel mechanism" in html.decode()


def test_crosstab_candidates_are_binary_grr_and_ordinal_only(answered):
    names = {q.spec["mechanism"] for q in crosstabs.crosstab_candidates(answered)}
    assert names == {"forced_response", "warner", "grr", "ordinal"}


def test_breakdown_debiases_within_each_group_with_the_mechanism(answered):
    q = _by_mechanism(answered)
    question, by = q["grr"], q["plain"]
    result = crosstabs.breakdown(question, by)
    mechanism = ldp.build(question.spec)
    groups = dict(by.plain_answers.values_list("submission_id", "value"))
    reports = dict(payloads(question.reports.all(), "submission_id"))
    assert sum(s.n for s in result.strata) == 300
    for value, stratum in enumerate(result.strata):
        mine = [r for s, r in reports.items() if groups[s] == value]
        expected = mechanism.estimate(mechanism.aggregate(mine))
        np.testing.assert_allclose(stratum.estimate, expected.estimate)
        assert stratum.label == by.options[value]


def test_breakdown_page_renders_groups(ada_client, answered):
    q = _by_mechanism(answered)
    url = reverse("analysis:crosstab", args=[answered.pk])
    html = ada_client.get(url, {"q": q["ordinal"].pk, "by": q["plain"].pk}).content
    html = html.decode()
    for label in ("First", "Second", "Third"):
        assert f"<h4>{label} " in html
    assert "Mean " in html


def test_privacy_page_shows_each_epsilon_the_total_and_tradeoff_charts(
    ada_client, answered
):
    html = ada_client.get(reverse("analysis:privacy", args=[answered.pk])).content
    html = html.decode()
    private = list(answered.questions.filter(is_private=True))
    epsilons = [ldp.build(q.spec).epsilon for q in private]
    total = sequential_composition(epsilons)
    assert f'data-field="sequential">{epsilon_text(total)}<' in html
    composed = re.search(r'data-field="composed">([\d.]+)<', html)
    assert composed or 'data-field="composed-none"' in html
    if composed:
        assert float(composed.group(1)) < total
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(svgs) == len(private)
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.find("{http://www.w3.org/2000/svg}title") is not None
    for q in private:
        assert ldp.build(q.spec).epsilon_display in html


def test_percent_formatting_keeps_one_decimal():
    assert numbers.percent(0.12345) == "12.3%"
    assert numbers.percent(None) == "—"


def test_breakdown_groups_below_the_minimum_size_are_suppressed_with_the_reason(
    answered, settings
):
    q = _by_mechanism(answered)
    settings.BREAKDOWN_MIN_GROUP = 10_000
    result = crosstabs.breakdown(q["grr"], q["plain"])
    for stratum in result.strata:
        assert stratum.estimate == [] and stratum.low == [] and stratum.mean is None
        assert stratum.note == crosstabs.SMALL_GROUP_NOTE
        assert stratum.minimum == 10_000


def test_breakdown_groups_at_the_minimum_size_show_shares_within_0_and_1(
    answered, settings
):
    q = _by_mechanism(answered)
    settings.BREAKDOWN_MIN_GROUP = 2
    result = crosstabs.breakdown(q["ordinal"], q["plain"])
    for stratum in result.strata:
        pairs = zip(stratum.low, stratum.high, strict=True)
        assert all(0 <= low < high <= 1 for low, high in pairs)
        assert 0 <= stratum.mean_low < stratum.mean_high
