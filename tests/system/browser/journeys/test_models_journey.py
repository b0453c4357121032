"""Regression and weighting in headless Chromium, from the results page.

A published survey has 900 respondents stored through the bulk ingest, every
protected report made by the reference randomizer ``ldp.build(spec)``.  The
researcher opens the results, follows "Regression", fits a logistic regression
of the randomized yes/no answer on region (reference: North) and age, reads
the table and downloads its CSV; then follows "Weights" on a phone, gives the
population's regions and reads weighted estimates next to unweighted ones.
Screenshots go to test-artifacts/journeys/ (copied to docs/screenshots/).
"""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.analysis.models import AnalysisJob
from tests.surveys.analysis.model_support import (
    AGE,
    CHEATED,
    HOURS,
    REGION,
    make_model_survey,
    seed_respondents,
)
from tests.system.browser.journeys.conftest import DESKTOP, PHONE, download, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_researcher_runs_a_regression_and_a_weighting_from_the_results(
    live_server, browser, researcher, artifacts
):
    survey = make_model_survey(researcher)
    seed_respondents(survey, 900)
    problems: list[str] = []

    page = browser.new_context(viewport=DESKTOP, accept_downloads=True).new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    sign_in(page, live_server.url)
    page.goto(live_server.url + reverse("analysis:dashboard", args=[survey.pk]))
    page.get_by_role("link", name="Regression", exact=True).click()
    page.get_by_label("Outcome (a protected question)").select_option(
        label=f"1. {CHEATED} (yes/no: logistic)"
    )
    page.get_by_label(f"3. {REGION}").check()
    page.get_by_label(f"4. {AGE} (number)").check()
    page.locator("#regression-form select[name^=ref-]").first.select_option("North")
    page.get_by_role("button", name="Fit the regression").click()
    table = page.locator("#regression-table")
    expect(table).to_be_visible()
    expect(table.get_by_role("rowheader", name=f"{REGION}[South]")).to_be_visible()
    expect(
        table.get_by_role("columnheader", name="Odds ratio", exact=True)
    ).to_be_visible()
    expect(page.locator("#randomized-note")).to_contain_text("randomized on each")
    expect(page.locator("[data-field=missing]")).to_contain_text("complete cases")
    page.screenshot(path=str(artifacts / "regression-desktop.png"), full_page=True)
    name, body = download(page, page.locator("#regression-csv"))
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    job = AnalysisJob.objects.get(kind="regression")
    assert name.endswith(".csv")
    assert [r["term"] for r in rows] == [r["term"] for r in job.result["rows"]]

    phone = browser.new_context(viewport=PHONE).new_page()
    phone.on("pageerror", lambda error: problems.append(str(error)))
    sign_in(phone, live_server.url)
    phone.goto(live_server.url + reverse("analysis:dashboard", args=[survey.pk]))
    phone.get_by_role("link", name="Weights", exact=True).click()
    field = phone.get_by_label(f"Population shares for “{REGION}” (%)")
    field.fill("40, 40")
    phone.get_by_role("button", name="Compute weighted estimates").click()
    expect(phone.locator("#weights-error")).to_contain_text("give 3 percentages")
    phone.get_by_label(f"Population shares for “{REGION}” (%)").fill("34, 33, 33")
    phone.get_by_role("button", name="Compute weighted estimates").click()
    expect(phone.locator("#weights-result")).to_contain_text("post-stratification")
    expect(phone.get_by_role("heading", name=HOURS)).to_be_visible()
    expect(phone.locator("[data-field=design-effect]")).not_to_be_empty()
    phone.screenshot(path=str(artifacts / "weights-phone.png"), full_page=True)
    assert AnalysisJob.objects.filter(kind="weighted", status="done").count() == 1
    assert problems == []
