"""No page or export shows an interval of zero width or a share outside [0, 1].

Small samples in which every respondent sent the same reports are where
Wald, Woodruff and boundary intervals collapse ("5 to 5"): every question kind of
every mechanism family is checked there, on the results object, the
estimates CSV and JSON, and the results page.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import uuid

import pytest
from django.urls import reverse

from surveys.analysis.exports.estimates import estimates_csv, estimates_document
from surveys.analysis.reading import latest_results
from surveys.analysis.tallies.services import tallies_refresh
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.services import submissions_ingest_bulk
from tests.surveys.analysis.conftest import FOUR, GRID, make_survey, responses

pytestmark = pytest.mark.django_db
SHARE_CSV_COLUMNS = ("consistent", "ci_low", "ci_high")
PAIRS = (("ci_low", "ci_high"), ("mean_ci_low", "mean_ci_high"))
PAIRS += (("median_ci_low", "median_ci_high"),)


# A scale and a number at a large ε, where every report can give the same
# median (a Woodruff interval of one level).
SHARP = [
    ("ordinal", "ordinal", {"options": FOUR}),
    ("geometric", "numeric", GRID),
]
SHARP_EPSILON = 4.5


def sharp_survey(owner):
    survey = authoring.survey_create(owner=owner, title="Sharp", epsilon_budget=10)
    for name, kind, extra in SHARP:
        authoring.question_create(
            survey=survey,
            text=f"Question under {name}",
            privacy=PrivacyConfig(
                kind=kind, epsilon=SHARP_EPSILON, mechanism=name, **extra
            ),
        )
    return authoring.survey_publish(survey=survey, user=owner)


@pytest.fixture(params=[("every family", 3), ("sharp", 3), ("sharp", 40)])
def identical(request, ada):
    """Questions answered by ``n`` respondents who all sent the same reports:
    every family at ε = 0.7, or a scale and a number at ε = 4.5."""
    which, n = request.param
    survey = make_survey(ada) if which == "every family" else sharp_survey(ada)
    (first,) = responses(survey, 1, seed=5)
    same = [dataclasses.replace(first, idempotency_key=uuid.uuid4()) for _ in range(n)]
    submissions_ingest_bulk(survey=survey, responses=same)
    tallies_refresh(survey_id=survey.pk)
    return survey


def test_every_interval_of_the_results_has_positive_width_and_shares_stay_in_range(
    identical,
):
    results = latest_results(identical)
    assert results is not None and results.questions
    for q in results.questions:
        for interval in q.intervals:
            assert interval.high > interval.low, (q.mechanism, interval)
        for share in q.consistent or []:
            assert 0 <= share <= 1, q.mechanism
        if q.mean_interval is not None:
            assert q.mean_interval.high > q.mean_interval.low, q.mechanism
        d = q.distribution
        if d is not None:
            assert d.median_interval.high > d.median_interval.low, q.mechanism
            for share, interval in zip(d.shares, d.intervals, strict=True):
                assert 0 <= interval.low <= share <= interval.high <= 1
                assert interval.high > interval.low, q.mechanism


def test_the_estimates_files_show_no_zero_width_interval(identical):
    results = latest_results(identical)
    rows = list(csv.DictReader(io.StringIO("".join(estimates_csv(results)))))
    shown = 0
    for row in rows:
        for low, high in PAIRS:
            if row[low] != "":
                assert float(row[high]) > float(row[low]), (row["mechanism"], low)
                shown += 1
        if row["row_type"].startswith("share") or row["row_type"].startswith("bin"):
            for column in SHARE_CSV_COLUMNS:
                if row[column] != "":
                    assert 0 <= float(row[column]) <= 1, (row["mechanism"], column)
    assert shown
    for question in estimates_document(results)["questions"]:
        for interval in question["intervals"]:
            assert interval["high"] > interval["low"]
        d = question["distribution"]
        if d is not None:
            assert d["median_interval"]["high"] > d["median_interval"]["low"]


def test_the_results_page_reads_no_interval_from_a_value_to_itself(
    identical, ada_client
):
    page = ada_client.get(reverse("analysis:dashboard", args=[identical.pk]))
    assert page.status_code == 200
    text = re.sub(r"<[^>]+>", "", page.content.decode())
    found = re.findall(r"interval ([-\d.,−]+%?) to ([-\d.,−]+%?)", text)
    assert found
    assert all(low != high for low, high in found), found
