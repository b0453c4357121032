"""R rebuilds the weights page's weights and weighted estimates from the wide
CSV, and R's ``survey`` package agrees (``slow``: it starts R).

The script the weights page offers (``weights_r.weights_r_script``) runs on
the exported CSV: every weighted share or mean and its 95% interval equals
the weights page's table (``weights.weighted_result``) to 1e-9.  Then
``survey`` rebuilds the same weights (``postStratify`` for one margin,
``rake`` for several) and, on each question's support rows or scores,
``svymean`` gives the script's estimates and, after post-stratification,
its standard errors (the residual variance; docs/maths.md, section 6.6).

After raking the script's standard errors hold the weights fixed
(``z_i = w_i (y_i − ȳ_w)/Σ w``): they equal ``svymean`` on a design with
those weights to 1e-9.  ``svymean`` on the ``rake()``d design instead sweeps
each margin's means out of ``z_i`` (``svyrecvar``'s raking branch), the
linearization of the calibration estimator (Deville & Särndal 1992; Lumley
2010, chapter 7).  The two differ by the part of ``z`` the margins' levels
explain.  Here the answers are drawn independently of the year and the
campus, so that part is of chance size, about (levels − margins)/n = 3/250
of the variance with its sampling spread, in either direction once the
centring differs: the two standard errors must agree within 10% (measured:
0.96 to 1.08).  A survey whose margins predict its answers would differ more
(docs/maths.md, section 6.6).
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from surveys.analysis.exports import datasets
from surveys.analysis.jobs import weights, weights_r
from surveys.analysis.reading import latest_results
from surveys.analysis.results import selectors
from surveys.analysis.tallies.services import tallies_refresh
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from tests.surveys.analysis import dashboard_support
from tests.surveys.analysis.conftest import make_survey, submit_bulk

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
TOLERANCE = 1e-9
# Fixed-weight against rake()'s calibrated standard errors (module docstring).
RAKED_SE = 0.10
FIELDS = {
    "WEIGHTED",
    "LOW",
    "HIGH",
    "SVYMEAN",
    "SVYSE",
    "SUPPORT",
    "SUPPORTSE",
    "RAKESE",
}
YEAR = "Which year are you in?"
CAMPUS = "Where do you live?"
CAMPUS_CONFIG = PrivacyConfig(
    kind="single_choice", is_private=False, options=("On campus", "Off campus")
)
PRINT_AND_CHECK = r"""
suppressPackageStartupMessages(library(survey))
said <- function(what, name, x) cat(what, name, sprintf("%.17g", x), "\n")
for (name in names(weighted)) {
  e <- weighted[[name]]
  said("WEIGHTED", name, if (is.null(e$mean)) e$estimate else e$mean)
  said("LOW", name, e$low)
  said("HIGH", name, e$high)
  cell <- if (is.null(e$strata)) "all" else e$strata
  frame <- data.frame(y = e$support, w = e$weights, cell = cell)
  design <- svydesign(ids = ~1, weights = ~w, data = frame)
  if (!is.null(e$strata)) {
    totals <- tapply(frame$w, frame$cell, sum)
    strata_totals <- data.frame(cell = names(totals), Freq = as.vector(totals))
    design <- postStratify(design, ~cell, strata_totals)
  }
  m <- svymean(reformulate(grep("^y", names(frame), value = TRUE)), design)
  said("SVYMEAN", name, coef(m))
  said("SVYSE", name, SE(m))
  said("SUPPORT", name, colSums(e$weights * e$support) / sum(e$weights))
  said("SUPPORTSE", name, linearized_se(e$support, e$weights, e$strata))
}
base <- svydesign(ids = ~1, data = data.frame(cells, w = 1), weights = ~w)
population <- lapply(names(margins), function(m) {
  t <- margins[[m]] / sum(margins[[m]]) * sum(kept)
  setNames(data.frame(names(t), as.vector(t)), c(m, "Freq"))
})
formulas <- lapply(names(margins), function(m) reformulate(sprintf("`%s`", m)))
rebuilt <- if (length(margins) == 1) {
  postStratify(base, formulas[[1]], population[[1]], partial = TRUE)
} else {
  rake(base, formulas, population, control = list(maxit = 1000, epsilon = 1e-12))
}
theirs <- weights(rebuilt) / mean(weights(rebuilt))
cat("WEIGHTS", sprintf("%.17g", max(abs(theirs - w_all[kept]))), "\n")
if (length(margins) > 1) {
  # The raked design's own standard errors: its variance sweeps the margins'
  # weighted means out of the estimating functions (svyrecvar, "raking").
  for (name in names(weighted)) {
    e <- weighted[[name]]
    # Every kept respondent answered each question in these surveys.
    stopifnot(nrow(e$support) == sum(kept))
    raked <- rebuilt
    y <- setNames(as.data.frame(e$support), paste0("y", seq_len(ncol(e$support))))
    raked$variables <- cbind(raked$variables, y)
    said("RAKESE", name, SE(svymean(reformulate(names(y)), raked)))
  }
}
"""


@pytest.fixture
def families(researcher):
    """One question per mechanism family, and a plain question every
    respondent answers "Yes": one post-stratum, equal weights."""
    survey = make_survey(researcher)
    submit_bulk(survey, 160)
    tallies_refresh(survey_id=survey.pk)
    (plain,) = weights.margin_candidates(survey)
    return survey, {plain.pk: [1.0, 0.0]}


@pytest.fixture
def campus(ada):
    """Student life with a second plain question, for two margins."""
    survey = authoring.survey_create(owner=ada, title="Campus", epsilon_budget=20.0)
    for text, config in [*dashboard_support.QUESTIONS, (CAMPUS, CAMPUS_CONFIG)]:
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=config,
            not_private_acknowledged=not config.is_private,
        )
    survey = authoring.survey_publish(survey=survey, user=ada)
    dashboard_support.simulate(survey, 250)
    return survey


@pytest.fixture
def year_only(campus):
    """One margin with unequal cells: post-stratification."""
    year = campus.questions.get(text=YEAR)
    return campus, {year.pk: [0.2, 0.3, 0.5]}


@pytest.fixture
def year_and_campus(campus):
    """Two margins: raking."""
    year = campus.questions.get(text=YEAR)
    where = campus.questions.get(text=CAMPUS)
    return campus, {year.pk: [0.2, 0.3, 0.5], where.pk: [0.35, 0.65]}


def run(survey, margins, tmp_path) -> dict[tuple[str, str], list[float]]:
    name = f"survey-{survey.pk}-wide.csv"
    with (tmp_path / name).open("wb") as buffer:
        datasets.write_wide_csv_bom(survey, buffer)
    script = weights_r.weights_r_script(survey, margins) + PRINT_AND_CHECK
    (tmp_path / "weights.R").write_text(script, encoding="utf-8")
    done = subprocess.run(
        ["Rscript", "--vanilla", "weights.R"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed: dict[tuple[str, str], list[float]] = {}
    for parts in (line.split() for line in done.stdout.splitlines()):
        if parts and parts[0] in FIELDS:
            printed[parts[1].split("_")[0], parts[0]] = [float(v) for v in parts[2:]]
        elif parts and parts[0] == "WEIGHTS":
            printed["weights", "WEIGHTS"] = [float(parts[1])]
    return printed


@pytest.mark.parametrize("fixture", ["families", "year_only", "year_and_campus"])
def test_r_rebuilds_the_weights_pages_weights_and_estimates_and_survey_agrees(
    request, fixture, tmp_path
):
    survey, margins = request.getfixturevalue(fixture)
    latest_results(survey)
    snapshot = selectors.latest_snapshot(survey_id=survey.pk)
    table = weights.weighted_result(
        survey,
        {"margins": {str(pk): s for pk, s in margins.items()}},
        upto=snapshot.watermark,
        progress=lambda share: None,
    )
    printed = run(survey, margins, tmp_path)
    positions = {q.text: q.position for q in survey.questions.all()}
    compared = 0
    for entry in table["questions"]:
        if not entry["rows"]:
            continue
        name = f"q{positions[entry['text']]}"
        for field, key in (
            ("WEIGHTED", "weighted"),
            ("LOW", "weighted_low"),
            ("HIGH", "weighted_high"),
        ):
            np.testing.assert_allclose(
                printed[name, field],
                [row[key] for row in entry["rows"]],
                rtol=TOLERANCE,
                atol=1e-12,
            )
        # survey's svymean on the same support rows (or scores) and weights:
        # the same weighted supports, and after post-stratification the same
        # residual standard errors.
        np.testing.assert_allclose(
            printed[name, "SVYMEAN"], printed[name, "SUPPORT"], rtol=1e-12
        )
        np.testing.assert_allclose(
            printed[name, "SVYSE"], printed[name, "SUPPORTSE"], rtol=TOLERANCE
        )
        if len(margins) > 1:
            np.testing.assert_allclose(
                printed[name, "SUPPORTSE"], printed[name, "RAKESE"], rtol=RAKED_SE
            )
        compared += 1
    assert compared == sum(1 for e in table["questions"] if e["rows"]) > 0
    assert printed["weights", "WEIGHTS"][0] < 1e-9
