"""The regression and weights pages, their CSV downloads and their refusals."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from surveys.analysis.jobs import regressions, weights
from surveys.analysis.models import AnalysisJob
from surveys.analysis.tallies.services import tallies_recount
from surveys.analysis.tallies.snapshots import snapshot_refresh
from surveys.authoring.models import Collaborator
from tests.surveys.analysis.model_support import (
    AGE,
    CHEATED,
    EMPLOYED,
    HOURS,
    REGION,
    questions,
)

pytestmark = pytest.mark.django_db


SEEDED_RESPONDENTS = 600  # the module's kept survey (conftest.py)


def _regression_query(survey, outcome=CHEATED, covariates=(REGION, AGE), ref="South"):
    q = questions(survey)
    return {
        "outcome": str(q[outcome].pk),
        "covariate": [str(q[c].pk) for c in covariates],
        f"ref-{q[REGION].pk}": ref,
    }


def test_the_regression_page_shows_a_publishable_logistic_table(ada_client, seeded):
    url = reverse("analysis:regression", args=[seeded.pk])
    html = ada_client.get(url, _regression_query(seeded)).content.decode()
    job = AnalysisJob.objects.get(kind="regression")
    assert 'id="regression-table"' in html
    for heading in ("Coefficient", "Std. error", "z", "p", "95% CI", "Odds ratio"):
        assert f'<th scope="col">{heading}</th>' in html
    for term in ("(Intercept)", f"{REGION}[East]", f"{REGION}[North]", AGE):
        assert f'<th scope="row">{term}</th>' in html
    assert f'<dd data-field="n">{job.result["n"]}</dd>' in html
    assert "complete cases only" in html and "(reference: South)" in html
    assert "Forced response" in html or "forced" in html.lower()
    assert "randomized on each respondent's device" in html
    assert "standard errors are therefore larger" in html
    assert "degrees of freedom, p &lt; 0.001." in html  # region and age matter


def test_a_linear_regression_page_has_no_odds_ratios(ada_client, seeded):
    url = reverse("analysis:regression", args=[seeded.pk])
    query = _regression_query(seeded, outcome=HOURS, covariates=(EMPLOYED,))
    html = ada_client.get(url, query).content.decode()
    assert "Linear regression of" in html and "Odds ratio" not in html
    assert f'<th scope="row">{EMPLOYED}[No]</th>' in html  # reference: Yes


def test_the_regression_csv_is_the_stored_table(ada_client, seeded):
    query = _regression_query(seeded)
    ada_client.get(reverse("analysis:regression", args=[seeded.pk]), query)
    response = ada_client.get(
        reverse("analysis:regression_csv", args=[seeded.pk]), query
    )
    assert response.status_code == 200 and response["Content-Type"].startswith(
        "text/csv"
    )
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    job = AnalysisJob.objects.get(kind="regression")  # the page's job, reused
    assert [r["term"] for r in rows] == [r["term"] for r in job.result["rows"]]
    assert [float(r["coefficient"]) for r in rows] == [
        r["estimate"] for r in job.result["rows"]
    ]
    assert float(rows[0]["odds_ratio"]) == pytest.approx(
        job.result["rows"][0]["odds_ratio"]
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (lambda s: _regression_query(s, covariates=(HOURS,)), "is protected"),
        (lambda s: _regression_query(s, covariates=()), "at least one covariate"),
        (lambda s: _regression_query(s, outcome=REGION), "cannot be the outcome"),
        (lambda s: {**_regression_query(s), "covariate": ["x1"]}, "Pick covariates"),
        (lambda s: _regression_query(s, ref="Atlantis"), "allowed: one of"),
    ],
)
def test_the_regression_page_refuses_a_bad_model_and_stores_nothing(
    ada_client, seeded, query, message
):
    url = reverse("analysis:regression", args=[seeded.pk])
    html = ada_client.get(url, query(seeded)).content.decode()
    assert 'id="regression-error"' in html and message in html
    assert not AnalysisJob.objects.exists()
    csv_url = reverse("analysis:regression_csv", args=[seeded.pk])
    assert ada_client.get(csv_url, query(seeded)).status_code == 400


def test_a_queued_regression_shows_its_progress(ada_client, seeded):
    q = questions(seeded)
    job, _ = regressions.regression_request(
        survey=seeded, outcome=q[CHEATED].pk, covariates=[q[REGION].pk], references={}
    )
    url = reverse("analysis:regression", args=[seeded.pk])
    query = _regression_query(seeded, covariates=(REGION,), ref="North")
    html = ada_client.get(url, query).content.decode()
    status_url = reverse("analysis:job_status", args=[seeded.pk, job.pk])
    assert f'data-job-url="{status_url}"' in html and "<progress" in html
    csv_url = reverse("analysis:regression_csv", args=[seeded.pk])
    assert ada_client.get(csv_url, query).status_code == 503


def test_the_weights_page_shows_both_estimates_and_the_design_effect(
    ada_client, seeded
):
    q = questions(seeded)
    url = reverse("analysis:weights", args=[seeded.pk])
    html = ada_client.get(
        url, {"weigh": "1", f"margin-{q[REGION].pk}": "34, 33, 33"}
    ).content.decode()
    job = AnalysisJob.objects.get(kind="weighted")
    assert job.status == AnalysisJob.Status.DONE
    assert "Weights: post-stratification" in html
    assert f"{job.result['design_effect']:.3f}" in html
    assert 'data-field="effective-n"' in html
    assert html.count("weighted-table") == 2  # both protected questions
    assert "Unweighted" in html and "Weighted" in html


def test_the_weights_csv_has_a_row_per_answer_and_mean(ada_client, seeded):
    q = questions(seeded)
    query = {"weigh": "1", f"margin-{q[REGION].pk}": "34, 33, 33"}
    response = ada_client.get(reverse("analysis:weights_csv", args=[seeded.pk]), query)
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["question"], r["answer"]) for r in rows] == [
        (CHEATED, "No"),
        (CHEATED, "Yes"),
        (HOURS, "Mean"),
    ]
    job = AnalysisJob.objects.get(kind="weighted")
    (cheated,) = [e for e in job.result["questions"] if e["text"] == CHEATED]
    assert float(rows[1]["weighted_estimate"]) == cheated["rows"][1]["weighted"]


def test_the_weights_r_script_writes_the_margins_it_is_given(ada_client, seeded):
    q = questions(seeded)
    query = {"weigh": "1", f"margin-{q[REGION].pk}": "34, 33, 33"}
    url = reverse("analysis:weights_r", args=[seeded.pk])
    response = ada_client.get(url, query)
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith('-weights.R"')
    script = response.content.decode()
    assert "= 0.34, " in script and "w_all[kept] <- calibrate(cells, margins)" in script
    assert not AnalysisJob.objects.exists()


@pytest.mark.parametrize("margin", ["40, 40, 40", ""])
def test_the_weights_r_script_refuses_bad_margins_with_the_reason(
    ada_client, seeded, margin
):
    q = questions(seeded)
    url = reverse("analysis:weights_r", args=[seeded.pk])
    response = ada_client.get(url, {"weigh": "1", f"margin-{q[REGION].pk}": margin})
    assert response.status_code == 400
    assert ("120%" if margin else "population margins") in response.content.decode()


@pytest.mark.parametrize(
    ("margin", "message"),
    [("40, 40, 40", "add up to 120%, not 100%"), ("", "at least one")],
)
def test_the_weights_page_refuses_bad_margins_and_stores_nothing(
    ada_client, seeded, margin, message
):
    q = questions(seeded)
    url = reverse("analysis:weights", args=[seeded.pk])
    html = ada_client.get(
        url, {"weigh": "1", f"margin-{q[REGION].pk}": margin}
    ).content.decode()
    assert 'id="weights-error"' in html and message in html
    assert not AnalysisJob.objects.exists()


def test_an_empty_cell_is_explained_on_the_weights_page(ada_client, seeded):
    q = questions(seeded)
    url = reverse("analysis:weights", args=[seeded.pk])
    q[REGION].plain_answers.filter(value=0).delete()
    # Answers edited in place: the tallies and the snapshot are counted again.
    tallies_recount(survey_id=seeded.pk)
    snapshot_refresh(survey_id=seeded.pk, force=True)
    html = ada_client.get(
        url, {"weigh": "1", f"margin-{q[REGION].pk}": "34, 33, 33"}
    ).content.decode()
    assert 'id="weights-error"' in html and "Empty cell" in html


def test_the_results_pages_link_to_regression_and_weights(ada_client, seeded):
    html = ada_client.get(reverse("analysis:dashboard", args=[seeded.pk])).content
    html = html.decode()
    assert reverse("analysis:regression", args=[seeded.pk]) in html
    assert reverse("analysis:weights", args=[seeded.pk]) in html


def test_a_viewer_runs_both_and_a_stranger_gets_404(client, seeded, bob):
    q = questions(seeded)
    pages = [
        (reverse("analysis:regression", args=[seeded.pk]), _regression_query(seeded)),
        (
            reverse("analysis:weights", args=[seeded.pk]),
            {"weigh": "1", f"margin-{q[REGION].pk}": "34, 33, 33"},
        ),
    ]
    client.force_login(bob)
    for url, query in pages:
        assert client.get(url, query).status_code == 404
    assert not AnalysisJob.objects.exists()
    Collaborator.objects.create(survey=seeded, user=bob, role="viewer")
    for url, query in pages:
        assert client.get(url, query).status_code == 200
    assert AnalysisJob.objects.filter(status="done").count() == 2


def test_the_margin_candidates_are_the_unprotected_choice_questions(seeded):
    names = {q.text for q in weights.margin_candidates(seeded)}
    assert names == {REGION, EMPLOYED}
    outcomes = {q.text for q in regressions.outcome_candidates(seeded)}
    assert outcomes == {CHEATED, HOURS}
    covariates = {q.text for q in regressions.covariate_candidates(seeded)}
    assert covariates == {REGION, AGE, EMPLOYED}


def test_a_french_reader_is_told_why_the_margins_are_refused_in_french(
    ada_client, seeded
):
    q = questions(seeded)
    url = reverse("analysis:weights", args=[seeded.pk])
    query = {"weigh": "1", f"margin-{q[REGION].pk}": "40, 40, 40"}
    html = ada_client.get(url, query, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "font 120\u00a0% au total, pas 100\u00a0%" in html
    assert not AnalysisJob.objects.exists()


def test_a_french_reader_is_told_why_the_model_is_refused_in_french(ada_client, seeded):
    url = reverse("analysis:regression", args=[seeded.pk])
    query = _regression_query(seeded, outcome=REGION)
    html = ada_client.get(url, query, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "ne peut pas être la variable expliquée" in html
    csv_url = reverse("analysis:regression_csv", args=[seeded.pk])
    answer = ada_client.get(csv_url, query, HTTP_ACCEPT_LANGUAGE="fr")
    assert "cannot be the outcome" in answer.content.decode()  # plain text: English


def test_the_weights_page_reads_in_spanish_and_its_csv_stays_english(
    ada_client, seeded
):
    q = questions(seeded)
    url = reverse("analysis:weights", args=[seeded.pk])
    query = {"weigh": "1", f"margin-{q[EMPLOYED].pk}": "40, 60"}
    html = ada_client.get(url, query, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert '<th scope="row">Sí</th>' in html  # margin table and protected yes/no
    assert '<th scope="row">Media</th>' in html
    assert " a " in html.split('id="wq1-caption"')[1].split("</table>")[0]
    csv_url = reverse("analysis:weights_csv", args=[seeded.pk])
    text = ada_client.get(csv_url, query, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["answer"] for r in rows] == ["No", "Yes", "Mean"]


def test_the_regression_table_reads_in_french(ada_client, seeded):
    url = reverse("analysis:regression", args=[seeded.pk])
    query = _regression_query(seeded)
    html = ada_client.get(url, query, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert '<th scope="row">(Constante)</th>' in html
    assert "&lt; 0,001" in html
